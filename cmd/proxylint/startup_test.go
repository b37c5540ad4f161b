package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEnvoyAPIIsNotLinked holds the program to reading Envoy through the
// descriptors embedded in parsers/envoy: go-control-plane's and cncf/xds's
// generated packages register their descriptors at start-up, which would
// cost every run, nginx runs included, more than linting one file.
func TestEnvoyAPIIsNotLinked(t *testing.T) {
	out, err := boundedCommand(t, time.Minute, "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list named only %d packages: %v", len(deps), deps)
	}
	for _, p := range deps {
		// protodesc (and gofeaturespb, which it imports) initialise at
		// start: parsers/envoy builds its descriptors without them.
		for _, banned := range []string{"github.com/envoyproxy/go-control-plane/", "github.com/cncf/xds/", "cel.dev/expr", "google.golang.org/genproto/",
			"google.golang.org/protobuf/reflect/protodesc", "google.golang.org/protobuf/types/gofeaturespb"} {
			if strings.HasPrefix(p, banned) {
				t.Errorf("proxylint links %s", p)
			}
		}
	}
}

// initBytesBound is the most package initialisation may allocate, over
// every package the program links. It was 412 KB with protodesc linked,
// and is 245 KB without it.
const initBytesBound = 300 << 10

// TestPackageInitialisationIsSmall holds what every run pays before its
// first line of work: the bytes the packages' initialisation allocates,
// which the runtime reports with GODEBUG=inittrace=1 (bytes, not time,
// so that a busy machine does not change the answer).
func TestPackageInitialisationIsSmall(t *testing.T) {
	cmd := boundedCommand(t, time.Minute, proxylintBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("proxylint version: %v\n%s", err, out)
	}
	total, packages := 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PACKAGE @T ms, T ms clock, N bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		total += n
		packages++
	}
	if packages < 20 {
		t.Fatalf("inittrace named only %d packages:\n%s", packages, out)
	}
	if total > initBytesBound {
		t.Errorf("package initialisation allocates %d bytes in %d packages, more than %d:\n%s", total, packages, initBytesBound, out)
	}
	t.Logf("package initialisation: %d bytes in %d packages", total, packages)
}
