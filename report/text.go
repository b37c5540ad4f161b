package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// palette holds the colours of the text report; each colour is switched on
// or off on its own, so no global colour state is touched.
type palette struct {
	err, warn, note, pos, rule, caret, fix, dim *color.Color
	enabled                                     bool
}

func newPalette(enabled bool) palette {
	p := palette{
		err:     color.New(color.FgRed, color.Bold),
		warn:    color.New(color.FgYellow, color.Bold),
		note:    color.New(color.FgCyan, color.Bold),
		pos:     color.New(color.Bold),
		rule:    color.New(color.Faint),
		caret:   color.New(color.FgGreen, color.Bold),
		fix:     color.New(color.FgGreen),
		dim:     color.New(color.Faint),
		enabled: enabled,
	}
	for _, c := range []*color.Color{p.err, p.warn, p.note, p.pos, p.rule, p.caret, p.fix, p.dim} {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

// print writes the concatenation of parts in colour c, when the report
// is in colour, and as it is otherwise: without a colour each part goes
// straight to the writer.
func (p palette) print(w *bufio.Writer, c *color.Color, parts ...string) {
	if !p.enabled {
		for _, s := range parts {
			w.WriteString(s)
		}
		return
	}
	w.WriteString(c.Sprint(strings.Join(parts, "")))
}

func (p palette) severity(s model.Severity) *color.Color {
	switch s {
	case model.Error:
		return p.err
	case model.Warning:
		return p.warn
	}
	return p.note
}

// Text writes findings as a compiler does: "path:line:col: severity:
// message [rule]", the source line with a caret, related positions and the
// fix; then what was read and a one-line summary, unless Quiet.
// Suppressed findings are left out.
func Text(w io.Writer, in *Input, useColor bool) error {
	bw := bufio.NewWriter(w)
	p := newPalette(useColor)
	shown := 0
	for _, f := range in.Findings {
		if f.Suppression != nil {
			continue
		}
		shown++
		// Everything that comes from the files read is escaped, so
		// that a file cannot forge a line, a terminal sequence or a
		// workflow command.
		p.print(bw, p.pos, Escape(in.posText(f.Pos)), ":")
		bw.WriteByte(' ')
		p.print(bw, p.severity(f.Severity), f.Severity.String(), ":")
		bw.WriteByte(' ')
		bw.WriteString(Escape(f.Message))
		bw.WriteByte(' ')
		p.print(bw, p.rule, "[", Escape(f.Rule), "]")
		bw.WriteByte('\n')
		in.quote(bw, p, f.Pos)
		for _, r := range f.Related {
			bw.WriteString("    ")
			p.print(bw, p.dim, "note:")
			bw.WriteByte(' ')
			if r.Pos.IsValid() {
				p.print(bw, p.pos, Escape(in.posText(r.Pos)), ":")
				bw.WriteByte(' ')
			}
			bw.WriteString(Escape(r.Message))
			bw.WriteByte('\n')
		}
		if f.Fix.Message != "" {
			bw.WriteString("    ")
			p.print(bw, p.fix, fixLabel(f.Fix), ":")
			bw.WriteByte(' ')
			bw.WriteString(Escape(f.Fix.Message))
			bw.WriteByte('\n')
		}
		for _, e := range f.Fix.Edits {
			before, after, ok := in.fixedLines(e)
			if !ok {
				continue
			}
			bw.WriteString("      ")
			p.print(bw, p.dim, Escape(in.posText(in.filePos(e))))
			bw.WriteByte('\n')
			for _, l := range before {
				bw.WriteString("      ")
				p.print(bw, p.dim, "-")
				bw.WriteByte(' ')
				bw.WriteString(Escape(l))
				bw.WriteByte('\n')
			}
			for _, l := range after {
				bw.WriteString("      ")
				p.print(bw, p.fix, "+")
				bw.WriteByte(' ')
				bw.WriteString(Escape(l))
				bw.WriteByte('\n')
			}
		}
	}
	if in.Quiet {
		return bw.Flush()
	}
	c := Count(in.Findings)
	if len(in.Targets) > 0 && (shown > 0 || in.Verbose) {
		fmt.Fprintf(bw, "read %s, linted for %s (--target names a release)\n", in.Read, Escape(strings.Join(in.Targets, ", ")))
	}
	if shown > 0 || c.Suppressed > 0 || in.Known > 0 || in.Skipped > 0 {
		fmt.Fprintln(bw, summary(c, in.Known, in.Skipped))
	}
	return bw.Flush()
}

// fixLabel names a fix in the text and github reports: "fix" for advice
// and for what --fix applies, "unsafe fix (--unsafe-fixes)" for edits
// --fix applies only with --unsafe-fixes.
func fixLabel(f rules.Fix) string {
	if f.Applicability == rules.Unsafe && len(f.Edits) > 0 {
		return "unsafe fix (--unsafe-fixes)"
	}
	return "fix"
}

func (in *Input) posText(p model.Pos) string {
	q := p
	q.File = in.RelPath(p.File)
	return q.String()
}

// maxQuote is the longest line, in code points as printed, that a text
// report quotes.
const maxQuote = 200

// quote prints the source line of pos with a caret under its column.
func (in *Input) quote(w *bufio.Writer, p palette, pos model.Pos) {
	line, ok := in.Line(pos.File, int(pos.Line))
	if !ok || pos.Col < 1 {
		return
	}
	// Long lines are not quoted; escaping only lengthens a line, so one
	// too long already is not escaped to find out.
	if len(line) > 4*maxQuote || utf8.RuneCountInString(line) > maxQuote {
		return
	}
	// Tabs become four blanks and control characters escapes; the caret
	// goes under the same character of the line so written. A line with
	// nothing to escape (a tab is escaped) is written as it is.
	col := int(pos.Col) - 1
	if needsEscape(line) {
		line, col = escape(line, "    ", col)
		if utf8.RuneCountInString(line) > maxQuote {
			return
		}
	}
	var num [12]byte
	n := strconv.AppendInt(num[:0], int64(pos.Line), 10)
	w.WriteString("  ")
	p.print(w, p.dim, string(n))
	w.WriteByte(' ')
	p.print(w, p.dim, "|")
	w.WriteByte(' ')
	w.WriteString(line)
	w.WriteString("\n  ")
	writeBlanks(w, len(n))
	w.WriteByte(' ')
	p.print(w, p.dim, "|")
	w.WriteByte(' ')
	writeBlanks(w, col)
	p.print(w, p.caret, "^")
	w.WriteByte('\n')
}

// writeBlanks writes n blanks.
func writeBlanks(w *bufio.Writer, n int) {
	const blanks = "                                                                "
	for n > len(blanks) {
		w.WriteString(blanks)
		n -= len(blanks)
	}
	w.WriteString(blanks[:max(n, 0)])
}

func summary(c Counts, known, skipped int) string {
	parts := []string{}
	add := func(n int, one, many string) {
		switch n {
		case 0:
		case 1:
			parts = append(parts, "1 "+one)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(c.Errors, "error", "errors")
	add(c.Warnings, "warning", "warnings")
	add(c.Notes, "note", "notes")
	s := strings.Join(parts, ", ")
	if s == "" {
		s = "no findings"
	}
	var extra []string
	if c.Suppressed > 0 {
		extra = append(extra, fmt.Sprintf("%d suppressed", c.Suppressed))
	}
	if known > 0 {
		extra = append(extra, fmt.Sprintf("%d known from the baseline", known))
	}
	switch {
	case skipped == 1:
		extra = append(extra, "1 file skipped")
	case skipped > 1:
		extra = append(extra, fmt.Sprintf("%d files skipped", skipped))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}
