package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// findingBatches collects findings in batches and hands them over in one
// slice of the right length: a run may report tens of thousands, and a
// slice grown by appending copies them over and over and ends with up to
// twice the room it needs.
type findingBatches struct {
	full [][]Finding
	cur  []Finding
	n    int
	strs interner
}

func (b *findingBatches) add(f Finding) {
	if len(b.cur) == cap(b.cur) {
		if len(b.cur) > 0 {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]Finding, 0, min(max(2*cap(b.cur), 8), 1024))
	}
	clipFinding(&f)
	b.strs.finding(&f)
	b.cur = append(b.cur, f)
	b.n++
}

// addAll moves the findings of o, in their order, to the end of b; o is
// left empty.
func (b *findingBatches) addAll(o *findingBatches) {
	if o.n == 0 {
		return
	}
	if len(b.cur) > 0 {
		b.full = append(b.full, b.cur)
		b.cur = nil
	}
	b.full = append(b.full, o.full...)
	if len(o.cur) > 0 {
		b.full = append(b.full, o.cur)
	}
	b.n += o.n
	*o = findingBatches{}
}

// all returns the findings in the order they were added; nil when there
// are none. The batches are let go of as they are copied, so that the
// findings are not held twice.
func (b *findingBatches) all() []Finding {
	if b.n == 0 {
		return nil
	}
	if len(b.full) == 0 {
		return b.cur
	}
	out := make([]Finding, 0, b.n)
	for i, batch := range b.full {
		out = append(out, batch...)
		b.full[i] = nil
	}
	out = append(out, b.cur...)
	*b = findingBatches{}
	return out
}

// interner keeps one copy of the texts the findings of one rule repeat:
// a rule that finds the same thing on 400,000 routes writes the same
// message, fix and edits for each. It stops looking once most texts turn
// out to be new, when the table would cost more than it saves.
type interner struct {
	seen       map[string]string
	adds, hits int
	off        bool
}

// internCheck is how many texts the interner looks up before it judges
// whether they repeat enough.
const internCheck = 4096

func (in *interner) str(s string) string {
	if in.off || len(s) < 16 {
		return s
	}
	if in.seen == nil {
		in.seen = map[string]string{}
	}
	in.adds++
	if t, ok := in.seen[s]; ok {
		in.hits++
		return t
	}
	if in.adds >= internCheck && in.hits < in.adds/2 {
		in.off, in.seen = true, nil
		return s
	}
	in.seen[s] = s
	return s
}

func (in *interner) finding(f *Finding) {
	if in.off {
		return
	}
	f.Message = in.str(f.Message)
	f.Fix.Message = in.str(f.Fix.Message)
	for i := range f.Related {
		f.Related[i].Message = in.str(f.Related[i].Message)
	}
	for i := range f.Fix.Edits {
		f.Fix.Edits[i].New = in.str(f.Fix.Edits[i].New)
	}
}

// maxEcho is the longest run of text without a space a finding's message
// shows: messages quote names and values from the input, which a hostile
// or broken file can make megabytes long (a 10 MB "@type").
const maxEcho = 200

// clipFinding cuts what a finding's texts echo of the input (clip); the
// edits are left whole, as they must apply.
func clipFinding(f *Finding) {
	f.Message = clip(f.Message)
	f.Fix.Message = clip(f.Fix.Message)
	for i := range f.Related {
		f.Related[i].Message = clip(f.Related[i].Message)
	}
}

// longRun reports whether s holds a run of more than maxEcho bytes
// without white space. It looks at windows of maxEcho+1 bytes from their
// ends, so that a message whose words are short (nearly all) is passed
// over a window at a time rather than byte by byte: clip was 1% of a
// 200-server run's CPU samples.
func longRun(s string) bool {
	// No run of more than maxEcho bytes starts before i.
	for i := 0; len(s)-i > maxEcho; {
		j := strings.LastIndexAny(s[i:i+maxEcho+1], " \n\t")
		if j < 0 {
			return true
		}
		i += j + 1
	}
	return false
}

// clip shortens each run of s without white space that is longer than
// maxEcho bytes to its start and end around a count of what was left out.
func clip(s string) string {
	if len(s) <= maxEcho || !longRun(s) {
		return s
	}
	var b strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || c == '\n' || c == '\t' {
			run = 0
			continue
		}
		if run++; run <= maxEcho {
			continue
		}
		// s[i-maxEcho:i] is a run that goes on: cut it.
		start := i - maxEcho
		end := i
		for end < len(s) && s[end] != ' ' && s[end] != '\n' && s[end] != '\t' {
			end++
		}
		keepHead, keepTail := start+maxEcho*3/4, end-maxEcho/4
		for keepHead > start && !utf8.RuneStart(s[keepHead]) {
			keepHead--
		}
		for keepTail < end && !utf8.RuneStart(s[keepTail]) {
			keepTail++
		}
		b.WriteString(s[:keepHead])
		fmt.Fprintf(&b, "…(%d bytes)…", keepTail-keepHead)
		b.WriteString(s[keepTail:end])
		return b.String() + clip(s[end:])
	}
	return s
}
