package rules

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/model"
)

// Rules under which the engine reports suppression comments that do not do
// what they say. They have no Check: the engine reads the comments.
var (
	UnusedSuppression = &Rule{
		ID:       "unused-suppression",
		Summary:  "a proxylint:ignore comment suppresses nothing",
		Severity: model.Note,
		Tags:     []string{"suppression"},
	}
	InvalidSuppression = &Rule{
		ID:       "invalid-suppression",
		Summary:  "a proxylint:ignore comment cannot be read, names an unknown rule, or lacks a required reason",
		Severity: model.Warning,
		Tags:     []string{"suppression"},
	}
)

// The comment forms, after the comment marker and leading blanks:
//
//	proxylint:ignore RULE[,RULE...] [-- reason]
//	proxylint:ignore-file RULE[,RULE...] [-- reason]
const (
	ignoreKeyword     = "proxylint:ignore"
	ignoreFileKeyword = "proxylint:ignore-file"
)

// ignoreDirective is one suppression comment.
type ignoreDirective struct {
	pos    model.Pos
	whole  bool // ignore-file: every finding of the rules in the file
	line   int  // the line it covers (0: none); unused for ignore-file
	rules  []string
	reason string
	used   map[string]bool
}

func (d *ignoreDirective) keyword() string {
	if d.whole {
		return ignoreFileKeyword
	}
	return ignoreKeyword
}

// applySuppressions marks the findings that suppression comments cover and
// reports the comments that are malformed, name unknown rules, lack a
// required reason or cover nothing.
func applySuppressions(m *model.Model, opts *Options, findings []Finding) []Finding {
	if opts.NoInlineIgnores {
		return findings
	}
	byFile := map[string][]*ignoreDirective{}
	var extra []Finding
	report := func(r *Rule, f Finding) {
		if !opts.Enabled(r) {
			return
		}
		f.Rule = r.ID
		if f.Severity == 0 {
			f.Severity = r.Severity
		}
		extra = append(extra, f)
	}
	for _, file := range m.Files {
		var lines []string // split on the first suppression in the file
		for _, c := range file.Comments {
			d, problem := parseIgnore(c)
			if d == nil && problem == "" {
				continue
			}
			if problem != "" {
				report(InvalidSuppression, Finding{
					Pos:     c.Pos,
					Message: problem,
					Fix:     Advice("write \"# " + ignoreKeyword + " RULE[,RULE] -- reason\"; \"proxylint rules\" lists the rule IDs"),
				})
				continue
			}
			for _, id := range d.rules {
				if _, ok := Lookup(id); !ok {
					msg := fmt.Sprintf("%s names %q, which is not a rule. It suppresses nothing.", d.keyword(), id)
					if near := nearestRuleID(id); near != "" {
						msg = fmt.Sprintf("%s names %q, which is not a rule; did you mean %q? It suppresses nothing.", d.keyword(), id, near)
					}
					report(InvalidSuppression, Finding{
						Pos:     c.Pos,
						Message: msg,
						Fix:     Advice("correct the rule ID (\"proxylint rules\" lists them)"),
					})
				}
			}
			if d.reason == "" && opts.RequireReason {
				report(InvalidSuppression, Finding{
					Severity: model.Error,
					Pos:      c.Pos,
					Message:  fmt.Sprintf("%s %s gives no reason, and --require-reason demands one. Say why the finding is acceptable here.", d.keyword(), strings.Join(d.rules, ",")),
					Fix:      Advice("append \" -- \" and the reason to the comment"),
				})
			}
			if !d.whole {
				if lines == nil {
					lines = splitLines(file.Source)
				}
				d.line = coveredLine(lines, c.Pos)
			}
			byFile[c.Pos.File] = append(byFile[c.Pos.File], d)
		}
	}
	if len(byFile) == 0 {
		return append(findings, extra...)
	}

	for i := range findings {
		f := &findings[i]
		// A file that could not be loaded makes the run exit 2 whatever
		// the comments say; hiding the reason would only confuse.
		unsuppressible := f.Unread
		for _, d := range byFile[f.Pos.File] {
			if !d.whole && d.line != int(f.Pos.Line) {
				continue
			}
			if !d.covers(f.Rule) {
				continue
			}
			d.used[f.Rule] = true
			if f.Suppression == nil && !unsuppressible {
				f.Suppression = &Suppression{Pos: d.pos, Reason: d.reason}
			}
		}
	}

	for _, file := range m.Files {
		for _, d := range byFile[file.Path] {
			for _, id := range d.rules {
				r, ok := Lookup(id)
				if !ok || d.used[r.ID] || !opts.Enabled(r) {
					continue
				}
				where := fmt.Sprintf("on line %d", d.line)
				if d.whole {
					where = "in this file"
				} else if d.line == 0 {
					where = "because no configuration line follows it directly"
				}
				report(UnusedSuppression, Finding{
					Pos:     d.pos,
					Message: fmt.Sprintf("%s %s suppresses nothing: %s reports no finding %s. Remove the comment, or the rule from it.", d.keyword(), id, id, where),
					Fix:     Advice("delete the suppression so that a new finding of " + id + " is not hidden by it"),
				})
			}
		}
		delete(byFile, file.Path) // each file once, even if listed twice
	}
	return append(findings, extra...)
}

// covers reports whether the directive names rule, by its ID or an alias
// (gixy's add_header_redefinition for set-header-drops-inherited).
func (d *ignoreDirective) covers(rule string) bool {
	for _, id := range d.rules {
		if Canonical(id) == rule {
			return true
		}
	}
	return false
}

// parseIgnore reads a comment. It returns nil and "" for a comment that is
// not a suppression, and a problem when it is one that cannot be read.
func parseIgnore(c model.Comment) (*ignoreDirective, string) {
	text := strings.TrimSpace(c.Text)
	if fixed, ok := almostIgnore(text); ok {
		return nil, fmt.Sprintf("%q is not a suppression proxylint reads; write \"# %s\". It suppresses nothing.", "# "+text, fixed)
	}
	if !strings.HasPrefix(text, ignoreKeyword) {
		return nil, ""
	}
	d := &ignoreDirective{pos: c.Pos, used: map[string]bool{}}
	rest := strings.TrimPrefix(text, ignoreKeyword)
	if r, ok := strings.CutPrefix(rest, "-file"); ok {
		d.whole, rest = true, r
	}
	if rest != "" && !unicode.IsSpace(rune(rest[0])) {
		word, _, _ := strings.Cut(text, " ")
		return nil, fmt.Sprintf("%q is not a proxylint directive. Write %s or %s.", word, ignoreKeyword, ignoreFileKeyword)
	}
	list, reason, _ := strings.Cut(rest, "--")
	d.reason = strings.TrimSpace(reason)
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if strings.ContainsFunc(id, unicode.IsSpace) {
			return nil, fmt.Sprintf("%s %s cannot be read: separate rule IDs with commas and put the reason after \" -- \". It suppresses nothing.", d.keyword(), strings.TrimSpace(list))
		}
		d.rules = append(d.rules, id)
	}
	if len(d.rules) == 0 {
		return nil, fmt.Sprintf("%s names no rule. Name the rules to ignore; there is no catch-all.", d.keyword())
	}
	return d, ""
}

// coveredLine is the line a line suppression at pos covers: its own line
// when it follows configuration on that line; otherwise the next line,
// skipping further comment lines (a reason may go on). A blank line ends
// the search: the comment then covers nothing.
func coveredLine(lines []string, pos model.Pos) int {
	line := int(pos.Line)
	if line < 1 || line > len(lines) {
		return line
	}
	if !blankBefore(lines[line-1], int(pos.Col)) {
		return line
	}
	for n := line + 1; n <= len(lines); n++ {
		t := strings.TrimSpace(lines[n-1])
		switch {
		case t == "":
			return 0
		case strings.HasPrefix(t, "#"):
			continue
		default:
			return n
		}
	}
	return 0
}

// blankBefore reports whether only blanks precede column col (1-based, in
// code points) of line.
func blankBefore(line string, col int) bool {
	n := 1
	for _, r := range line {
		if n >= col {
			return true
		}
		if r != ' ' && r != '\t' {
			return false
		}
		n++
	}
	return true
}

// splitLines splits src into lines without their endings.
func splitLines(src []byte) []string {
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// ignoreWords are the directive words a suppression may have been meant
// to use, with the keyword each means.
var ignoreWords = map[string]string{
	"ignore": ignoreKeyword, "ignore-line": ignoreKeyword, "ignore-next-line": ignoreKeyword,
	"ignore-next": ignoreKeyword, "disable": ignoreKeyword, "disable-line": ignoreKeyword,
	"disable-next-line": ignoreKeyword, "nolint": ignoreKeyword,
	"ignore-file": ignoreFileKeyword, "ignorefile": ignoreFileKeyword, "disable-file": ignoreFileKeyword,
}

// almostIgnore recognises a comment that was meant as a suppression but is
// not written as one ("proxylint: ignore X", "proxylint ignore X",
// "proxylint:ignore-line X", "ProxyLint:Ignore X") and returns it
// corrected. A comment in the right form, or one that merely mentions
// proxylint, is not one.
func almostIgnore(text string) (string, bool) {
	const name = "proxylint"
	if len(text) < len(name) || !strings.EqualFold(text[:len(name)], name) {
		return "", false
	}
	i := len(name)
	sep := i
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && text[i] == ':' {
		i++
	}
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	start := i
	for i < len(text) && (text[i] == '-' || text[i] < unicode.MaxASCII && unicode.IsLetter(rune(text[i]))) {
		i++
	}
	word := text[start:i]
	keyword, ok := ignoreWords[strings.ToLower(word)]
	if !ok || (i < len(text) && text[i] != ' ' && text[i] != '\t') {
		return "", false
	}
	if text[:sep] == name && text[sep:start] == ":" && word == keyword[len(name)+1:] {
		return "", false // the right form
	}
	rest := strings.TrimSpace(text[i:])
	if rest == "" {
		rest = "RULE -- reason"
	}
	return keyword + " " + rest, true
}

// nearestRuleID is the rule a misspelt ID in a suppression was probably
// meant to name, or "".
func nearestRuleID(id string) string {
	var ids []string
	for _, r := range All() {
		ids = append(ids, r.ID)
	}
	return suggest.Nearest(strings.ToLower(id), ids, 3)
}
