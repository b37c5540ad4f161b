package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/proxylint/proxylint/rules"
)

// fileFindings are the unsuppressed findings about one file, in the
// report's order.
type fileFindings struct {
	name     string
	findings []rules.Finding
	// index is each finding's index in Input.Findings (for its
	// fingerprint).
	index []int
}

// findingFiles groups the unsuppressed findings by file, the files in the
// order their first finding comes in.
func (in *Input) findingFiles() []*fileFindings {
	var out []*fileFindings
	byName := map[string]*fileFindings{}
	for i, f := range in.Findings {
		if f.Suppression != nil {
			continue
		}
		ff := byName[f.Pos.File]
		if ff == nil {
			ff = &fileFindings{name: f.Pos.File}
			byName[f.Pos.File] = ff
			out = append(out, ff)
		}
		ff.findings = append(ff.findings, f)
		ff.index = append(ff.index, i)
	}
	return out
}

// xmlAttr escapes s for an attribute value in double quotes: markup and
// quotes, and tabs and line breaks as character references, which a parser
// keeps as they are (it turns literal ones into blanks); the characters
// XML 1.0 cannot hold at all are written as the text report escapes them.
func xmlAttr(s string) string { return xmlAttrEscaper.Replace(xmlChars(s)) }

var xmlAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#xA;", "\r", "&#xD;", "\t", "&#x9;")

// xmlText is s as element content: markup escaped, line breaks as they are
// (a carriage return as a reference, which a parser would drop).
func xmlText(s string) string { return xmlTextEscaper.Replace(xmlChars(s)) }

var xmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "&#xD;")

// xmlChars replaces what an XML 1.0 document cannot contain: control
// characters other than tab and line breaks, and invalid UTF-8, by the
// escapes of the text report (\x01, \xff).
func xmlChars(s string) string {
	ok := utf8.ValidString(s)
	for _, r := range s {
		if !xmlAllowed(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, !xmlAllowed(r) && r < 0x80:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case !xmlAllowed(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// xmlAllowed reports whether XML 1.0 allows r in a document.
func xmlAllowed(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
