package envoy

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// probeInputs are plain scalars of the shapes the shortcuts answer for,
// their neighbours, and random strings over the characters that matter.
func probeInputs() []string {
	in := []string{
		"0", "7", "10000", "007", "0.25", "1.5", "127.0.0.1", "0.0.0.0", "1.2.3.4:80", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
		"5s", "0.25s", "30m", "1h", "1s5", "1e5", "1E5", "0x1F", "0X1f", "0x", "0o17", "0b101", "1_000", "123456789012345678",
		"1234567890123456789", "9223372036854775807", "9223372036854775808", "18446744073709551616", "1.", "1..", "1.2.", "+1", "-1", "+-1",
		"08", "09", "0777", "1:20", "12:30:45", "1.2e3.4", "5ms", "10h30m", "0h", "2.5.6-rc1",
	}
	const alphabet = "0123456789..smhxXeE_-+:abf"
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := 1 + rnd.IntN(8)
		var b strings.Builder
		b.WriteByte("0123456789"[rnd.IntN(10)])
		for range n - 1 {
			b.WriteByte(alphabet[rnd.IntN(len(alphabet))])
		}
		in = append(in, b.String())
	}
	return in
}

// The shortcuts that spare the YAML reader's failed conversions answer as
// the reader does.
func TestDigitsTagMatchesTheYAMLReader(t *testing.T) {
	for _, s := range probeInputs() {
		if got, ok := digitsTag(s); ok {
			if want := scalarTag(&yaml.Node{Kind: yaml.ScalarNode, Value: s}); got != want {
				t.Errorf("digitsTag(%q) = %v, the YAML reader says %v", s, got, want)
			}
		}
	}
}

func TestIntDigitsBeforeParseInt(t *testing.T) {
	for _, s := range append(probeInputs(), "-5", "+0x1f", "-0x", "0xg", "0X") {
		v, ok := yamlCppInt(s)
		digits := strings.TrimLeft(s, "+-")
		want, wantOK := int64(0), false
		if len(s)-len(digits) <= 1 && digits != "" && !strings.Contains(digits, "_") &&
			(len(digits) < 2 || digits[0] != '0' || !strings.ContainsAny(digits[1:2], "bBoO")) {
			want, wantOK = parseIntBase0(s)
		}
		if v != want || ok != wantOK {
			t.Errorf("yamlCppInt(%q) = %d, %v; ParseInt gives %d, %v", s, v, ok, want, wantOK)
		}
	}
}

func TestIsJSONName(t *testing.T) {
	for _, name := range []string{"a", "a_b", "a__b", "a_", "_a", "connect_timeout", "http1_safe_max_connection_duration", "x_1y", "a_B", "a_b_c"} {
		for _, s := range []string{name, jsonName(name), "a", "aB", "ab", "connectTimeout", "http1SafeMaxConnectionDuration", "x1y", "aBC", "aBc", ""} {
			if got, want := isJSONName(s, name), s != name && s == jsonName(name); got != want {
				t.Errorf("isJSONName(%q, %q) = %v, want %v", s, name, got, want)
			}
		}
	}
}

func parseIntBase0(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// An object of many keys looks its keys up in a map: a key written again
// is found as among few keys, before and after the map is made.
func TestDuplicateKeyAmongManyKeys(t *testing.T) {
	for _, again := range []int{2, manyKeys + 3} {
		var b strings.Builder
		b.WriteString("{")
		for i := range manyKeys + 5 {
			fmt.Fprintf(&b, "%q: %d,\n", fmt.Sprintf("k%02d", i), i)
		}
		fmt.Fprintf(&b, "%q: 99}", fmt.Sprintf("k%02d", again))
		n, dups, err := parseJSON([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if len(dups) != 1 || dups[0].line != manyKeys+6 || !strings.Contains(dups[0].msg, fmt.Sprintf(`duplicate key "k%02d" (first at line %d)`, again, again+1)) {
			t.Errorf("key %d written again: %+v", again, dups)
		}
		if len(n.kids()) != manyKeys+5 || n.get(fmt.Sprintf("k%02d", again)).text() != "99" {
			t.Errorf("key %d written again: %d keys, value %q", again, len(n.kids()), n.get(fmt.Sprintf("k%02d", again)).text())
		}
	}
}
