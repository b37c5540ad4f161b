package proof

import (
	"flag"
	"os"
	"testing"
)

// TestMain raises the default -parallel limit (GOMAXPROCS) for this
// package. Its tests spend their time waiting for nginx timers and use
// almost no CPU, so running them all at once keeps the package at a few
// seconds instead of the sum of the timeouts divided by the core count.
// An explicit -parallel on the command line still wins.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			explicit = true
		}
	})
	if !explicit {
		_ = flag.Set("test.parallel", "32")
	}
	os.Exit(m.Run())
}
