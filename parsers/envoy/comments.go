package envoy

import (
	"strings"
	"unicode/utf8"

	"github.com/proxylint/proxylint/model"
)

// comments finds the YAML comments of a file with their positions: the
// YAML reader keeps comment text but not where it was. A "#" starts a
// comment at the start of a line or after a blank, outside quoted scalars
// and block scalars (| and >). JSON has no comments, and its strings are
// quoted, so nothing is found there.
func comments(file string, src []byte) []model.Comment {
	var out []model.Comment
	rest := sourceText(src) // the lines not yet read
	blockIndent := -1       // inside a block scalar: lines indented more than this belong to it
	var quote byte          // a quoted scalar running across lines
	for i, more := 0, true; more; i++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(line) == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		col, text, endQuote := scanLine(line, quote)
		quote = endQuote
		if col > 0 {
			out = append(out, model.Comment{
				Pos:  model.Pos{File: file, Line: int32(i + 1), Col: int32(utf8.RuneCountInString(line[:col-1]) + 1)},
				Text: text,
			})
		}
		if quote == 0 && opensBlockScalar(line, col) {
			blockIndent = indent
		}
	}
	return out
}

// scanLine finds a comment in one line; quote is the quoted scalar that is
// open at the start of the line. It returns the comment's byte column (0
// for none), its text and the quote still open at the end of the line.
func scanLine(line string, quote byte) (int, string, byte) {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch quote {
		case '"':
			switch c {
			case '\\':
				i++
			case '"':
				quote = 0
			}
			continue
		case '\'':
			if c == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
				} else {
					quote = 0
				}
			}
			continue
		}
		switch c {
		case '#':
			if i == 0 || line[i-1] == ' ' || line[i-1] == '\t' {
				return i + 1, line[i+1:], 0
			}
		case '"', '\'':
			// A quote opens a scalar only where a value may start.
			if startsValue(line, i) {
				quote = c
			}
		}
	}
	return 0, "", quote
}

// startsValue reports whether position i of line may start a scalar: after
// indentation, "- ", ": ", "[", "{" or ",".
func startsValue(line string, i int) bool {
	j := i - 1
	for j >= 0 && (line[j] == ' ' || line[j] == '\t') {
		j--
	}
	if j < 0 {
		return true
	}
	switch line[j] {
	case ':', '-', '[', '{', ',', '?':
		return true
	}
	return false
}

// opensBlockScalar reports whether a line ends with a block scalar
// indicator ("key: |", "- >-", "key: |2 # note").
func opensBlockScalar(line string, commentCol int) bool {
	if commentCol > 0 {
		line = line[:commentCol-1]
	}
	line = strings.TrimRight(line, " \t")
	k := len(line)
	for k > 0 && strings.ContainsRune("+-0123456789", rune(line[k-1])) {
		k--
	}
	if k == 0 || (line[k-1] != '|' && line[k-1] != '>') {
		return false
	}
	before := strings.TrimRight(line[:k-1], " \t")
	return before == "" || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "-") || strings.HasSuffix(before, "---")
}
