package main

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"github.com/proxylint/proxylint/rules"
)

// The diff of a fixed file against the file as read: lines compared by
// Myers' O(ND) algorithm in its linear-space form ("An O(ND) Difference
// Algorithm and Its Variations", 1986, section 4b), which finds the middle
// snake of the shortest edit script from both ends and recurses on the two
// halves. Memory is linear in the number of lines and time is linear when
// the files differ in a few places, as a fix's do: a 20,000-line file with
// one edit is compared in one pass over the common head and tail.

// diffOp is one line of an edit script: kept (' '), deleted ('-') or
// inserted ('+').
type diffOp struct {
	kind byte
	line string
}

// differ holds the two files' lines, numbered so that equal lines compare
// as equal integers, and the two frontiers of the middle-snake search,
// allocated once.
type differ struct {
	a, b   []int
	al, bl []string
	vf, vb []int
	ops    []diffOp
}

// diffLines returns the edit script that turns al into bl.
func diffLines(al, bl []string) []diffOp {
	ops := make([]diffOp, 0, max(len(al), len(bl))+8)
	// The common head and tail, most of a fixed file, are compared as
	// text; only the lines between are numbered and searched.
	head := 0
	for head < len(al) && head < len(bl) && al[head] == bl[head] {
		ops = append(ops, diffOp{' ', al[head]})
		head++
	}
	tail := 0
	for tail < len(al)-head && tail < len(bl)-head && al[len(al)-1-tail] == bl[len(bl)-1-tail] {
		tail++
	}
	am, bm := al[head:len(al)-tail], bl[head:len(bl)-tail]
	ids := map[string]int{}
	number := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: number(am), b: number(bm), al: am, bl: bm, ops: ops}
	size := 2*((len(am)+len(bm)+1)/2) + 3
	d.vf, d.vb = make([]int, size), make([]int, size)
	d.compare(0, len(am), 0, len(bm))
	for _, l := range al[len(al)-tail:] {
		d.ops = append(d.ops, diffOp{' ', l})
	}
	deletionsFirst(d.ops)
	return d.ops
}

// deletionsFirst puts the deleted lines of each run of changes before the
// inserted ones, as diff prints a replacement; the script is the same.
func deletionsFirst(ops []diffOp) {
	var ins []diffOp
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		ins = ins[:0]
		k := i
		for _, o := range ops[i:j] {
			if o.kind == '-' {
				ops[k] = o
				k++
			} else {
				ins = append(ins, o)
			}
		}
		copy(ops[k:j], ins)
		i = j
	}
}

// compare appends the edit script of a[aLo:aHi] against b[bLo:bHi].
func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		d.ops = append(d.ops, diffOp{' ', d.al[aLo]})
		aLo++
		bLo++
	}
	tail := 0
	for aHi > aLo && bHi > bLo && d.a[aHi-1] == d.b[bHi-1] {
		aHi--
		bHi--
		tail++
	}
	switch {
	case aLo == aHi:
		for j := bLo; j < bHi; j++ {
			d.ops = append(d.ops, diffOp{'+', d.bl[j]})
		}
	case bLo == bHi:
		for i := aLo; i < aHi; i++ {
			d.ops = append(d.ops, diffOp{'-', d.al[i]})
		}
	default:
		x, y, u, v := d.middleSnake(aLo, aHi, bLo, bHi)
		d.compare(aLo, x, bLo, y)
		for i := x; i < u; i++ {
			d.ops = append(d.ops, diffOp{' ', d.al[i]})
		}
		d.compare(u, aHi, v, bHi)
	}
	for i := aHi; i < aHi+tail; i++ {
		d.ops = append(d.ops, diffOp{' ', d.al[i]})
	}
}

// middleSnake finds the middle snake of a shortest edit script of
// a[aLo:aHi] against b[bLo:bHi], both non-empty and differing at both
// ends: the run of equal lines from (x, y) to (u, v) that the forward
// search from the start and the reverse search from the end meet on. The
// script has at least two edits, one on each side of the snake, so both
// halves left to compare are smaller than the whole.
func (d *differ) middleSnake(aLo, aHi, bLo, bHi int) (x, y, u, v int) {
	n, m := aHi-aLo, bHi-bLo
	delta := n - m
	odd := delta&1 != 0
	limit := (n + m + 1) / 2
	off := limit + 1
	vf, vb := d.vf, d.vb
	// vf[off+k] is the furthest x reached on diagonal k = x - y going
	// forward; vb[off+k] the furthest distance from the end reached on
	// diagonal k of the reversed files.
	vf[off+1], vb[off+1] = 0, 0
	for e := 0; e <= limit; e++ {
		for k := -e; k <= e; k += 2 {
			var px int
			if k == -e || k != e && vf[off+k-1] < vf[off+k+1] {
				px = vf[off+k+1]
			} else {
				px = vf[off+k-1] + 1
			}
			py := px - k
			sx, sy := px, py
			for px < n && py < m && d.a[aLo+px] == d.b[bLo+py] {
				px++
				py++
			}
			vf[off+k] = px
			if kr := delta - k; odd && kr >= -(e-1) && kr <= e-1 && px+vb[off+kr] >= n {
				return aLo + sx, bLo + sy, aLo + px, bLo + py
			}
		}
		for k := -e; k <= e; k += 2 {
			var px int
			if k == -e || k != e && vb[off+k-1] < vb[off+k+1] {
				px = vb[off+k+1]
			} else {
				px = vb[off+k-1] + 1
			}
			py := px - k
			sx, sy := px, py
			for px < n && py < m && d.a[aHi-1-px] == d.b[bHi-1-py] {
				px++
				py++
			}
			vb[off+k] = px
			if kf := delta - k; !odd && kf >= -e && kf <= e && px+vf[off+kf] >= n {
				return aHi - px, bHi - py, aHi - sx, bHi - sy
			}
		}
	}
	// Unreachable, as the searches meet within limit steps; deleting a's
	// lines and inserting b's is a script too.
	return aHi, bLo, aHi, bLo
}

// unifiedHunks diffs two texts line by line, with three lines of context,
// as the hunks of a unified diff.
func unifiedHunks(a, b []byte) string {
	return hunks(diffLines(splitLines(a), splitLines(b)))
}

// editedHunks is unifiedHunks of a text and the text with the edits made
// (rules.ApplyEdits), which compares only the lines the edits touch: the
// rest is the same in both. Thousands of fixes spread over one file
// (an upstream per address used directly) are then diffed in time
// linear in the file, where one diff of the whole file takes the time of
// its lines times its changes.
func editedHunks(a []byte, edits []rules.Edit) (string, error) {
	sorted := append([]rules.Edit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	lines := splitLines(a)
	// starts[i] is the offset of line i; starts[len(lines)] the end.
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	// lineOf is the line holding offset off; the end of a last line
	// without a line break is that line's, as text added there joins it.
	lineOf := func(off int) int {
		i := max(0, sort.SearchInts(starts, off+1)-1)
		if i == len(lines) && i > 0 && !strings.HasSuffix(lines[i-1], "\n") {
			i--
		}
		return i
	}
	var ops []diffOp
	at := 0 // the first line not yet in ops
	for k := 0; k < len(sorted); {
		// A region of whole lines holding the edits that touch it.
		lo := lineOf(sorted[k].Start)
		hi := min(len(lines), lineOf(sorted[k].End)+1)
		j := k + 1
		for j < len(sorted) && lineOf(sorted[j].Start) <= hi {
			hi = max(hi, min(len(lines), lineOf(sorted[j].End)+1))
			j++
		}
		for _, l := range lines[at:lo] {
			ops = append(ops, diffOp{' ', l})
		}
		region := a[starts[lo]:starts[hi]]
		local := make([]rules.Edit, 0, j-k)
		for _, e := range sorted[k:j] {
			e.Start -= starts[lo]
			e.End -= starts[lo]
			local = append(local, e)
		}
		fixed, err := rules.ApplyEdits(region, local)
		if err != nil {
			return "", err
		}
		ops = append(ops, diffLines(lines[lo:hi], splitLines(fixed))...)
		at, k = hi, j
	}
	for _, l := range lines[at:] {
		ops = append(ops, diffOp{' ', l})
	}
	return hunks(ops), nil
}

// hunks writes an edit script as the hunks of a unified diff, with three
// lines of context.
func hunks(ops []diffOp) string {
	const ctx = 3
	var out strings.Builder
	// oldLine and newLine number the lines of ops[k] in each file.
	oldLine, newLine := 1, 1
	advance := func(o diffOp) {
		if o.kind != '+' {
			oldLine++
		}
		if o.kind != '-' {
			newLine++
		}
	}
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			advance(ops[k])
			k++
			continue
		}
		start := max(0, k-ctx)
		oldStart, newStart := oldLine-(k-start), newLine-(k-start)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		oldN, newN := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				oldN++
			}
			if o.kind != '-' {
				newN++
			}
		}
		out.WriteString("@@ -" + hunkRange(oldStart, oldN) + " +" + hunkRange(newStart, newN) + " @@\n")
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		for _, o := range ops[k:end] {
			advance(o)
		}
		k = end
	}
	return out.String()
}

// hunkRange writes a hunk's start and length as diff does: an empty range
// starts at the line before it.
func hunkRange(start, n int) string {
	if n == 0 {
		start--
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// splitLines splits b into lines, each with its line break, as
// substrings of one copy of b.
func splitLines(b []byte) []string {
	s := string(b)
	out := make([]string, 0, bytes.Count(b, []byte{'\n'})+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
