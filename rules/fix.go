package rules

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Edit is one change a fix makes to a source file: the bytes [Start, End)
// of the file's source are replaced by New. Start == End inserts. The
// loaders' editors make them (model/edit.go).
type Edit = model.Edit

// Applicability says when a fix may be applied, as ruff's fix safety
// does: a safe fix by --fix, an unsafe one only with --unsafe-fixes as
// well, a display-only one never (it is advice, for a person to carry
// out). The order is that of trust: a fix applies when its applicability
// is at least the run's threshold (SelectFixes).
type Applicability uint8

const (
	// DisplayOnly is advice: what to change, and where, when no edit
	// can be made here (the change belongs in another file or in the
	// program that generates this one, or is the author's to choose).
	// It has no edits.
	DisplayOnly Applicability = iota
	// Unsafe edits repair the finding but may undo what the author
	// chose on purpose, or rest on something proxylint cannot see (the
	// backend's capacity, a log parser's format): --fix applies them
	// only with --unsafe-fixes, and reports show them as unsafe.
	Unsafe
	// Safe edits do what the finding asks and nothing an author could
	// have meant otherwise: the configuration keeps working for every
	// request it served. --fix applies them.
	Safe
)

// String names the applicability as reports write it: "safe", "unsafe",
// "display-only".
func (a Applicability) String() string {
	switch a {
	case Safe:
		return "safe"
	case Unsafe:
		return "unsafe"
	}
	return "display-only"
}

// Fix is how to repair what a finding is about: Message says in one line
// what the fix does (or, for advice, what to do), Edits make it, and
// Applicability says whether --fix may apply them. The zero Fix is no
// fix. A rule builds one with Advice, SafeFix or UnsafeFix, in the rule's
// own file, and its doc says which of its fixes are which, and why.
type Fix struct {
	Message       string
	Edits         []Edit
	Applicability Applicability
	// placed: the advice already says where its change is written (the
	// generator of a generated file, the configuration a config dump
	// reports), so the engine does not say it again (inGenerated).
	placed bool
}

// Advice is a fix to read and carry out: no edits.
func Advice(msg string) Fix { return Fix{Message: msg} }

// SafeFix is a fix --fix applies: its edits, described by msg. Without
// edits (the editor could not make them) it is no fix; Or gives the
// advice to show instead.
func SafeFix(msg string, edits []Edit) Fix { return withEdits(msg, edits, Safe) }

// UnsafeFix is a fix --fix applies only with --unsafe-fixes.
func UnsafeFix(msg string, edits []Edit) Fix { return withEdits(msg, edits, Unsafe) }

func withEdits(msg string, edits []Edit, a Applicability) Fix {
	if len(edits) == 0 {
		return Fix{}
	}
	return Fix{Message: msg, Edits: edits, Applicability: a}
}

// Or returns the fix, or, when there is none (a mechanical fix that
// cannot be made in this layout), the advice: what to do instead.
func (f Fix) Or(advice string) Fix {
	if f.Message == "" && len(f.Edits) == 0 {
		return Advice(advice)
	}
	return f
}

// Applies reports whether the fix is applied at the threshold min (Safe:
// --fix; Unsafe: --fix --unsafe-fixes).
func (f Fix) Applies(min Applicability) bool {
	return len(f.Edits) > 0 && f.Applicability != DisplayOnly && f.Applicability >= min
}

// ---- applying fixes ----

// FixSet is the edits of several findings that can be applied together,
// by file.
type FixSet struct {
	Edits map[string][]Edit
	// Applied counts the findings whose edits are in the set; Skipped
	// those left out because they overlap an edit already taken (a later
	// run offers them again); Unsafe those left out because their fixes
	// are unsafe and the threshold is Safe (--unsafe-fixes applies
	// them).
	Applied, Skipped, Unsafe int
}

// SelectFixes takes the edits of the findings whose fixes apply at the
// threshold min, in order, leaving out a finding whose edits overlap one
// already taken. An edit equal to one taken is taken once; insertions at
// one place follow one another. Suppressed findings are never fixed.
// The overlaps are found in one sweep over the edits sorted by where they
// start, so that a file with thousands of fixes is fixed in the time of
// sorting them.
func SelectFixes(findings []Finding, min Applicability) FixSet {
	set := FixSet{Edits: map[string][]Edit{}}
	type ref struct {
		e              Edit
		finding, order int
	}
	var all []ref
	var candidates []int
	for i, f := range findings {
		if f.Suppression != nil || len(f.Fix.Edits) == 0 || f.Fix.Applicability == DisplayOnly {
			continue
		}
		if !f.Fix.Applies(min) {
			set.Unsafe++
			continue
		}
		candidates = append(candidates, i)
		for _, e := range f.Fix.Edits {
			all = append(all, ref{e: e, finding: i})
		}
	}
	// Equal places keep the order of the findings (and of a finding's
	// edits): an explicit last key, so that an unstable sort, which
	// makes fewer moves, gives one order.
	for k := range all {
		all[k].order = k
	}
	slices.SortFunc(all, func(x, y ref) int {
		if c := strings.Compare(x.e.File, y.e.File); c != 0 {
			return c
		}
		if c := cmp.Compare(x.e.Start, y.e.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(x.e.End, y.e.End); c != 0 {
			return c
		}
		return cmp.Compare(x.order, y.order)
	})
	// conflicts[i] lists the findings whose edits overlap one of i's.
	// One sweep in the order of the sort: open holds the replacements
	// not yet ended, and the insertions at the current place are grouped
	// by their first line, so that thousands of insertions at one place
	// (an upstream block per fix before the first server) are not each
	// compared with every other.
	conflicts := map[int][]int{}
	conflict := func(t, r ref) {
		if t.finding != r.finding && t.e != r.e {
			conflicts[t.finding] = append(conflicts[t.finding], r.finding)
			conflicts[r.finding] = append(conflicts[r.finding], t.finding)
		}
	}
	var open []ref
	var here map[string][]ref // the insertions at place, by first line
	place := -1
	for k, r := range all {
		if k > 0 && all[k-1].e.File != r.e.File {
			open, place = open[:0], -1
		}
		kept := open[:0]
		for _, t := range open {
			if t.e.End > r.e.Start {
				kept = append(kept, t)
			}
		}
		open = kept
		if r.e.Start == r.e.End {
			// An insertion overlaps a replacement it falls inside, and
			// another insertion at its place that starts alike.
			for _, t := range open {
				if t.e.Start < r.e.Start {
					conflict(t, r)
				}
			}
			if place != r.e.Start {
				here, place = map[string][]ref{}, r.e.Start
			}
			line := firstLine(r.e.New)
			for _, t := range here[line] {
				conflict(t, r)
			}
			here[line] = append(here[line], r)
			continue
		}
		// A replacement overlaps every one not yet ended.
		for _, t := range open {
			conflict(t, r)
		}
		open = append(open, r)
	}
	taken := map[int]bool{}
	seen := map[Edit]bool{}
	for _, i := range candidates {
		ok := true
		for _, j := range conflicts[i] {
			if taken[j] {
				ok = false
				break
			}
		}
		if !ok {
			set.Skipped++
			continue
		}
		taken[i] = true
		for _, e := range findings[i].Fix.Edits {
			if !seen[e] {
				seen[e] = true
				set.Edits[e.File] = append(set.Edits[e.File], e)
			}
		}
		set.Applied++
	}
	return set
}

// firstLine is the first line of an insertion's text, blanks before it
// left out: two insertions at one place that start alike are two
// settings of one directive, and overlap.
func firstLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// ApplyEdits returns src with the edits made. Edits are of one file and do
// not overlap (SelectFixes); insertions at one place keep their order.
func ApplyEdits(src []byte, edits []Edit) ([]byte, error) {
	sorted := append([]Edit{}, edits...)
	// Stable: the order of insertions at one place matters.
	sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[i], sorted[j]) })
	var out bytes.Buffer
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("%s: edit at bytes %d-%d overlaps another or lies outside the file", e.File, e.Start, e.End)
		}
		out.Write(src[at:e.Start])
		out.WriteString(e.New)
		at = e.End
	}
	out.Write(src[at:])
	return out.Bytes(), nil
}

// less orders edits by where they start; at one place an insertion comes
// before a replacement.
func less(a, b Edit) bool {
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.Start == a.End && b.Start != b.End
}
