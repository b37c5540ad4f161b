package nginx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proxylint/proxylint/parsers"
)

// parseString parses src as a main configuration file named test.conf.
func parseString(src string) (*File, *Error) {
	f, _, err := parseFile("test.conf", []byte(src), parentMain, 0, DefaultMaxDepth)
	return f, err
}

// lexAll renders every statement of src, one per element, as the kind of
// its end followed by its words as "line:col:value", e.g.
// `; 1:1:"listen" 1:8:"80"`. It stops at the first error.
func lexAll(src string) ([]string, []parsers.Comment, *Error) {
	lx := newLexer("test.conf", []byte(src))
	var out []string
	for {
		st, err := lx.next()
		if err != nil {
			return out, lx.comments, err
		}
		var b strings.Builder
		switch st.kind {
		case stmtEOF:
			return out, lx.comments, nil
		case stmtSimple:
			b.WriteString(";")
		case stmtBlockStart:
			b.WriteString("{")
		case stmtBlockEnd:
			b.WriteString("}")
		}
		for _, a := range st.args {
			fmt.Fprintf(&b, " %d:%d:%s", a.Pos.Line, a.Pos.Col, strconv.Quote(a.Value))
		}
		out = append(out, b.String())
	}
}

// posString renders a position as line:col, without the file.
func posString(p parsers.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }
