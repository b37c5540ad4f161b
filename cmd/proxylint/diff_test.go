package main

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lcsLength is the length of the longest common subsequence of a and b,
// by the quadratic table (fine for the small inputs here).
func lcsLength(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// The linear-space diff gives a script that turns a into b, and a
// shortest one: as many kept lines as the longest common subsequence.
func TestDiffLinesIsAShortestScript(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := range 3000 {
		gen := func() []string {
			out := make([]string, r.Intn(12))
			for i := range out {
				out[i] = string(rune('a'+r.Intn(1+n%5))) + "\n"
			}
			return out
		}
		a, b := gen(), gen()
		ops := diffLines(a, b)
		var gotA, gotB []string
		kept := 0
		for _, o := range ops {
			if o.kind != '+' {
				gotA = append(gotA, o.line)
			}
			if o.kind != '-' {
				gotB = append(gotB, o.line)
			}
			if o.kind == ' ' {
				kept++
			}
		}
		require.Equal(t, strings.Join(a, ""), strings.Join(gotA, ""), "%q -> %q", a, b)
		require.Equal(t, strings.Join(b, ""), strings.Join(gotB, ""), "%q -> %q", a, b)
		require.Equal(t, lcsLength(a, b), kept, "%q -> %q: a shortest script", a, b)
	}
}

// BenchmarkUnifiedHunks diffs a 20,000-line file against itself with one
// line changed, as --diff does after one fix.
func BenchmarkUnifiedHunks(b *testing.B) {
	var sb strings.Builder
	for i := range 20000 {
		sb.WriteString("        location /p")
		sb.WriteString(strings.Repeat("x", i%50))
		sb.WriteString(" { return 204; }\n")
	}
	old := sb.String()
	fixed := strings.Replace(old, "location /pxxxxxxxxxx {", "location /pxxxxxxxxxx {\n            proxy_http_version 1.1;", 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = unifiedHunks([]byte(old), []byte(fixed))
	}
}
