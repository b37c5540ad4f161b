package nginx

import (
	gocontext "context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// timeCases are nginx time values with what nginx 1.22 makes of them for a
// millisecond setting: ok false where "nginx -t" says "invalid value".
var timeCases = []struct {
	in string
	ms int64 // milliseconds when ok
	ok bool
}{
	{"60s", 60000, true},
	{"1h30m", 5400000, true},
	{"2s 500ms", 2500, true},
	{"1ms 5", 5001, true},
	{"90", 90000, true},
	{"0", 0, true},
	{"24d20h31m23s647ms", 2147483647, true},
	// Beyond what time.Duration holds, but nginx takes them.
	{"7625w53375d", (7625*7 + 53375) * 86400000, true},
	{"7625w53375d48h", (7625*7+53375)*86400000 + 48*3600000, true},
	{"15250284452w", 15250284452 * 604800000, true},
	{"15250284452w1d", 15250284452*604800000 + 86400000, true},
	{"9223372036854775", 9223372036854775000, true},
	{"9223372036854775s", 9223372036854775000, true},
	{"9223372036854775807ms", math.MaxInt64, true},
	// Overflows nginx refuses.
	{"15250284453w", 0, false},
	{"9223372036854776", 0, false},
	{"9223372036854776s", 0, false},
	{"9223372036854775808ms", 0, false},
	{"15250284452w106751991167d", 0, false},
	{"99999999999999999999", 0, false},
	// Malformed.
	{"-1s", 0, false},
	{"1y", 0, false},
	{"1M", 0, false},
	{"1s1m", 0, false},
	{"1s 1", 2000, true},
	{"1 1", 2000, true},
	{"1 1 1", 0, false},
	{"s", 0, false},
	{"", 0, false},
	{"inf", 0, false},
}

func TestParseTime(t *testing.T) {
	for _, c := range timeCases {
		d, err := parseTime(c.in)
		if !c.ok {
			if err == nil {
				t.Errorf("parseTime(%q) = %v, want an error", c.in, d)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseTime(%q): %v", c.in, err)
			continue
		}
		want := time.Duration(math.MaxInt64)
		if c.ms <= math.MaxInt64/int64(time.Millisecond) {
			want = time.Duration(c.ms) * time.Millisecond
		}
		if d != want {
			t.Errorf("parseTime(%q) = %v (%d ms), want %v", c.in, d, d.Milliseconds(), want)
		}
		if d < 0 {
			t.Errorf("parseTime(%q) is negative", c.in)
		}
	}
}

// TestParseTimeMatchesNginx runs nginx -t on every case.
func TestParseTimeMatchesNginx(t *testing.T) {
	bin := "/usr/sbin/nginx"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("no nginx at " + bin)
	}
	dir := t.TempDir()
	for _, c := range timeCases {
		if c.in == "" {
			continue // nginx refuses an empty value on its own terms
		}
		conf := filepath.Join(dir, "nginx.conf")
		src := fmt.Sprintf("error_log %s/e.log;\npid %s/p;\nevents {}\nhttp { access_log off; server { listen 127.0.0.1:1; proxy_read_timeout \"%s\"; } }\n", dir, dir, c.in)
		if err := os.WriteFile(conf, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := gocontext.WithTimeout(gocontext.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, bin, "-t", "-q", "-p", dir, "-c", conf).CombinedOutput()
		cancel()
		nginxOK := err == nil
		if nginxOK != c.ok {
			t.Errorf("%q: nginx -t ok=%v (%s), the case says %v", c.in, nginxOK, strings.TrimSpace(string(out)), c.ok)
		}
		if !nginxOK && !strings.Contains(string(out), "invalid value") {
			t.Errorf("%q: nginx -t: %s", c.in, out)
		}
	}
}

// signedDigits is true exactly where strconv.Atoi reads a number or fails
// only on its range.
func TestSignedDigitsAsAtoi(t *testing.T) {
	for _, s := range []string{"", "+", "-", "0", "8080", "+80", "-1", "99999999999999999999999", "1_000", "0x10", " 1", "1 ", "a1", "1a", "127.0.0.1", "[::1]:80", "unix:/x", "١٢"} {
		_, err := strconv.Atoi(s)
		reads := err == nil || errors.Is(err, strconv.ErrRange)
		if got := signedDigits(s); got != reads {
			t.Errorf("signedDigits(%q) = %v; Atoi: %v", s, got, err)
		}
	}
}
