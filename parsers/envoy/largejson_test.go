package envoy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/bench/gen"
)

// largeJSON renders a generated bootstrap of about size bytes as JSON:
// minified on one line, or indented when indent is set.
func largeJSON(tb testing.TB, size int, indent bool) []byte {
	tb.Helper()
	render := func(n int) []byte {
		y := gen.EnvoyBootstrap{Listeners: n, RoutesPerListener: 40, Clusters: 20 * n}.YAML()
		var v any
		if err := yaml.Unmarshal(y, &v); err != nil {
			tb.Fatal(err)
		}
		var out []byte
		var err error
		if indent {
			out, err = json.MarshalIndent(v, "", "  ")
		} else {
			out, err = json.Marshal(v)
		}
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
	unit := len(render(2)) / 2
	out := render(size/unit + 1)
	return out
}

// posOf is the 1-based line and code-point column of byte offset off.
func posOf(src []byte, off int) (int, int) {
	b := src[:off]
	line := bytes.Count(b, []byte{'\n'}) + 1
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return line, utf8.RuneCount(b) + 1
}

// TestLargeJSONPositions loads a megabyte of JSON, minified on one line and
// indented, with a misspelled field near its end and then a syntax error
// there, and expects each at its exact line and column.
func TestLargeJSONPositions(t *testing.T) {
	if testing.Short() {
		t.Skip("loads megabytes")
	}
	for _, indent := range []bool{false, true} {
		t.Run(fmt.Sprintf("indent=%v", indent), func(t *testing.T) {
			src := largeJSON(t, 1<<20, indent)
			if len(src) < 1<<20 {
				t.Fatalf("generated %d bytes, want at least 1 MB", len(src))
			}
			// A non-ASCII value before the error checks that columns
			// count code points, not bytes.
			src = bytes.Replace(src, []byte(`"bench"`), []byte(`"bénch→"`), 1)
			r := LoadBytes("big.json", src, Options{})
			wantClean(t, r)
			if p := onlyProxy(t, r); len(p.Upstreams) == 0 {
				t.Fatal("no upstreams read")
			}

			at := bytes.LastIndex(src, []byte(`"port_value"`))
			typo := bytes.Clone(src)
			copy(typo[at:], `"port_valeu"`)
			line, col := posOf(typo, at)
			if !indent && line != 1 {
				t.Fatalf("minified JSON has %d lines", line)
			}
			r = LoadBytes("big.json", typo, Options{})
			wantDiag(t, r, line, col, CodeInvalid, `unknown field "port_valeu"`)

			colon := at + len(`"port_value"`)
			broken := bytes.Clone(src)
			broken[colon] = '='
			line, col = posOf(broken, colon)
			r = LoadBytes("big.json", broken, Options{})
			wantDiag(t, r, line, col, CodeSyntax, "expected ':' after the key")
		})
	}
}

// BenchmarkLoadMinifiedJSON loads minified one-line JSON bootstraps of
// 100 KB and 800 KB, read by the JSON reader and, behind a comment line, by
// the YAML reader as one flow mapping: the time per byte stays the same
// when reading is linear in the input.
func BenchmarkLoadMinifiedJSON(b *testing.B) {
	for _, size := range []int{100 << 10, 800 << 10} {
		src := largeJSON(b, size, false)
		for _, reader := range []string{"json", "yaml"} {
			in := src
			if reader == "yaml" {
				in = append([]byte("# flow YAML\n"), src...)
			}
			b.Run(fmt.Sprintf("%s/%dKB", reader, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					if r := LoadBytes("big."+reader, in, Options{}); len(r.Proxies) != 1 {
						b.Fatal(diagStrings(r))
					}
				}
			})
		}
	}
}
