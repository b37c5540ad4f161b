package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/internal/racedetect"
	"github.com/proxylint/proxylint/model"
)

// parseString parses src as a main configuration file named test.conf.
func parseString(src string) (*File, *Error) {
	f, _, err := parseFile("test.conf", []byte(src), parentMain, 0, DefaultMaxDepth)
	return f, err
}

// lexAll renders every statement of src, one per element, as the kind of
// its end followed by its words as "line:col:value", e.g.
// `; 1:1:"listen" 1:8:"80"`. It stops at the first error.
func lexAll(src string) ([]string, []model.Comment, *Error) {
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
			fmt.Fprintf(&b, " %d:%d:%s", a.Line, a.Col, strconv.Quote(a.Value))
		}
		out = append(out, b.String())
	}
}

// dumpTree renders a directive tree one directive a line, indented by
// depth, with positions: `1:1 name "arg" "arg" {` ... `}`; a Lua block
// shows its body quoted.
func dumpTree(dirs []*Directive) string {
	var b strings.Builder
	var walk func(dirs []*Directive, indent string)
	walk = func(dirs []*Directive, indent string) {
		for _, d := range dirs {
			fmt.Fprintf(&b, "%s%d:%d %s", indent, d.Pos.Line, d.Pos.Col, strconv.Quote(d.Name))
			for _, a := range d.Args {
				fmt.Fprintf(&b, " %s", strconv.Quote(a.Value))
			}
			switch {
			case d.Lua() != nil:
				fmt.Fprintf(&b, " lua %s\n", strconv.Quote(*d.Lua()))
			case d.Block != nil:
				b.WriteString(" {\n")
				walk(d.Block, indent+"  ")
				b.WriteString(indent + "}\n")
			case len(d.Included()) > 0:
				b.WriteString(";\n")
				for _, f := range d.Included() {
					fmt.Fprintf(&b, "%s  < %s\n", indent, filepath.Base(f.Path))
					walk(f.Directives, indent+"    ")
				}
			default:
				b.WriteString(";\n")
			}
		}
	}
	walk(dirs, "")
	return b.String()
}

// writeFiles creates files (relative path -> content) below a new
// temporary directory and returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// posString renders a position as line:col, without the file.
func posString(p model.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// fatalDiagnostics returns the fatal diagnostics of a load.
func fatalDiagnostics(cfg *Config) []model.Diagnostic {
	var out []model.Diagnostic
	for _, d := range cfg.Diagnostics {
		if d.Fatal {
			out = append(out, d)
		}
	}
	return out
}

// watchdog is how long a test waits before it calls a load hung: far above
// any load's duration even on a loaded machine, so it catches a hang or an
// exponential blow-up, never a slow run (speed is measured by the
// benchmarks).
const watchdog = time.Minute

// timeLimit scales a time limit for the race detector.
func timeLimit(d time.Duration) time.Duration {
	if racedetect.Enabled {
		return 10 * d
	}
	return d
}

// argRaw is argument a as written in src, quotes included.
func argRaw(src []byte, a Arg) string {
	off := offsetOf(src, model.Pos{Line: a.Line, Col: a.Col})
	if off < 0 || off+int(a.Len) > len(src) {
		return ""
	}
	return string(src[off : off+int(a.Len)])
}

// argQuote is the quote argument a was written with in src, or 0.
func argQuote(src []byte, a Arg) byte {
	if raw := argRaw(src, a); raw != "" && (raw[0] == '"' || raw[0] == '\'') {
		return raw[0]
	}
	return 0
}
