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
