package rules

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// overlap is what SelectFixes's sweep must find, pair by pair: ranges
// that share a byte, an insertion inside a replaced range, or two
// insertions at one place that start alike.
func overlap(a, b Edit) bool {
	if a.Start == a.End && b.Start == b.End {
		return a.Start == b.Start && firstLine(a.New) == firstLine(b.New)
	}
	if a.Start == a.End {
		return a.Start > b.Start && a.Start < b.End
	}
	if b.Start == b.End {
		return b.Start > a.Start && b.Start < a.End
	}
	return a.Start < b.End && b.Start < a.End
}

// selectByPairs is SelectFixes by comparing every pair of edits.
func selectByPairs(fs []Finding) (taken []int) {
	for i, f := range fs {
		ok := true
		for _, j := range taken {
			for _, a := range f.Fix.Edits {
				for _, b := range fs[j].Fix.Edits {
					if a.File == b.File && a != b && overlap(a, b) {
						ok = false
					}
				}
			}
		}
		if ok {
			taken = append(taken, i)
		}
	}
	return taken
}

// TestSelectFixesSweepIsPairwise: on random edits, the sweep takes the
// findings a comparison of every pair takes.
func TestSelectFixesSweepIsPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"a;\n", "a;\nb;\n", "\n  a;", "b;\n", ""}
	for n := range 500 {
		var fs []Finding
		for range 1 + rng.IntN(8) {
			var es []Edit
			for range 1 + rng.IntN(3) {
				start := rng.IntN(12)
				end := start
				if rng.IntN(2) == 0 {
					end += rng.IntN(4)
				}
				es = append(es, Edit{File: []string{"f", "g"}[rng.IntN(2)], Start: start, End: end, New: texts[rng.IntN(len(texts))]})
			}
			fs = append(fs, Finding{Fix: SafeFix("fix", es)})
		}
		want := selectByPairs(fs)
		set := SelectFixes(fs, Safe)
		var got []int
		for i, f := range fs {
			all := true
			for _, e := range f.Fix.Edits {
				all = all && slices.Contains(set.Edits[e.File], e)
			}
			if all && slices.Contains(want, i) {
				got = append(got, i)
			}
		}
		if set.Applied != len(want) || len(got) != len(want) {
			t.Fatalf("case %d: the sweep took %d findings, the pairs %v\n%+v", n, set.Applied, want, fs)
		}
	}
}

// BenchmarkSelectFixesAtOnePlace: thousands of fixes that each declare
// an upstream block before the first server insert at one place; their
// selection takes the time of sorting them, not of comparing each pair.
func BenchmarkSelectFixesAtOnePlace(b *testing.B) {
	for _, n := range []int{2500, 5000} {
		fs := make([]Finding, n)
		for i := range fs {
			fs[i] = Finding{Fix: SafeFix("fix", []Edit{
				{File: "f", Start: 100, End: 100, New: fmt.Sprintf("upstream backend_%d {\n    server 127.0.0.1:%d;\n}\n\n", i, i)},
				{File: "f", Start: 1000 + 10*i, End: 1005 + 10*i, New: fmt.Sprintf("backend_%d", i)},
			})}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if set := SelectFixes(fs, Safe); set.Applied != n {
					b.Fatalf("applied %d of %d", set.Applied, n)
				}
			}
		})
	}
}
