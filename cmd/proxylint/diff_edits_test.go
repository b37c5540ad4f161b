package main

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/rules"
)

// applyHunks applies the hunks of a unified diff to the lines of old, as
// patch does, checking every context and deleted line.
func applyHunks(t *testing.T, old, diff string) string {
	t.Helper()
	a := splitLines([]byte(old))
	var out []string
	at := 0
	lines := strings.SplitAfter(diff, "\n")
	for k := 0; k < len(lines) && lines[k] != ""; {
		h := lines[k]
		if !strings.HasPrefix(h, "@@ -") {
			t.Fatalf("not a hunk header: %q", h)
		}
		rng, _, _ := strings.Cut(strings.TrimPrefix(h, "@@ -"), " ")
		startText, _, _ := strings.Cut(rng, ",")
		start, _ := strconv.Atoi(startText)
		if n, _ := strconv.Atoi(strings.SplitN(rng, ",", 2)[1]); n > 0 {
			start--
		}
		out = append(out, a[at:start]...)
		at = start
		k++
		for k < len(lines) && lines[k] != "" && !strings.HasPrefix(lines[k], "@@ ") {
			l := lines[k]
			k++
			text := l[1:]
			if k < len(lines) && lines[k] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				k++
			}
			switch l[0] {
			case ' ', '-':
				if at >= len(a) || a[at] != text {
					t.Fatalf("line %d is %q in the file, %q in the diff\n%s", at+1, a[min(at, len(a)-1)], text, diff)
				}
				at++
				if l[0] == ' ' {
					out = append(out, text)
				}
			case '+':
				out = append(out, text)
			}
		}
	}
	out = append(out, a[at:]...)
	for i, l := range out[:max(0, len(out)-1)] {
		if !strings.HasSuffix(l, "\n") {
			t.Fatalf("line %d has no line break and is not the last\n%s", i+1, diff)
		}
	}
	return strings.Join(out, "")
}

// TestEditedHunksApply: the diff editedHunks writes turns the file into
// the file with the edits made, on random edits of random texts (a last
// line without a line break among them), as the diff of the two texts
// does.
func TestEditedHunksApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"a;\n", "b {\n", "}\n", "c", "\n", "d e;\n"}
	for n := range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		old := b.String()
		var edits []rules.Edit
		at := 0
		for at <= len(old) && rng.IntN(4) != 0 {
			start := at + rng.IntN(len(old)-at+1)
			end := start + rng.IntN(len(old)-start+1)
			if rng.IntN(2) == 0 {
				end = start
			}
			edits = append(edits, rules.Edit{File: "f", Start: start, End: end, New: words[rng.IntN(len(words))]})
			at = end + 1
		}
		fixed, err := rules.ApplyEdits([]byte(old), edits)
		if err != nil {
			t.Fatal(err)
		}
		diff, err := editedHunks([]byte(old), edits)
		if err != nil {
			t.Fatal(err)
		}
		if got := applyHunks(t, old, diff); got != string(fixed) {
			t.Fatalf("case %d: the diff gives\n%q\nnot\n%q\nold %q edits %+v\n%s", n, got, fixed, old, edits, diff)
		}
		if whole := applyHunks(t, old, unifiedHunks([]byte(old), fixed)); whole != string(fixed) {
			t.Fatalf("case %d: the diff of the two texts gives %q", n, whole)
		}
	}
}
