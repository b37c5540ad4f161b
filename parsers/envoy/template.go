package envoy

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/model"
)

// templateMarks are the placeholders of the template languages Envoy
// configurations are generated with: Go templates, Jinja and Liquid ({{ }},
// {% %}), envsubst and Helm-rendered shell (${NAME}), and test harnesses
// (%%NAME%%). Envoy reads none of them: ${NAME} where a duration or a
// number goes is refused, in a string it is taken literally.
// The expression is compiled on first use, and run only on lines that hold
// one of the two characters every placeholder starts with.
var templateMarks = lazyre.New(`\{\{.*?\}\}|\{%.*?%\}|\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}]*)?\}|%%[A-Z_][A-Z0-9_]*%%`)

// mayHoldTemplate reports whether b holds "{{", "{%", "${" or "%%", the
// starts of the placeholders templateMarks matches.
func mayHoldTemplate(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		switch b[i] {
		case '{':
			if c := b[i+1]; c == '{' || c == '%' {
				return true
			}
		case '$':
			if b[i+1] == '{' {
				return true
			}
		case '%':
			if b[i+1] == '%' {
				return true
			}
		}
	}
	return false
}

// templateAt finds the first placeholder outside a YAML comment, and names
// its syntax; ok is false when src has none.
func templateAt(path string, src []byte) (model.Pos, string, bool) {
	if !mayHoldTemplate(src) {
		return model.Pos{}, "", false
	}
	line := 1
	for len(src) > 0 {
		end := bytes.IndexByte(src, '\n')
		text := src
		if end >= 0 {
			text = src[:end]
		}
		code := text
		if i := commentStart(text); i >= 0 {
			code = text[:i]
		}
		var loc []int
		if mayHoldTemplate(code) {
			loc = templateMarks().FindIndex(code)
		}
		if loc != nil {
			kind := "{{ }} expressions"
			switch m := code[loc[0]:loc[1]]; {
			case bytes.HasPrefix(m, []byte("{%")):
				kind = "{% %} tags"
			case bytes.HasPrefix(m, []byte("${")):
				kind = "${NAME} placeholders"
			case bytes.HasPrefix(m, []byte("%%")):
				kind = "%%NAME%% placeholders"
			}
			return model.Pos{File: path, Line: int32(line), Col: int32(utf8.RuneCount(code[:loc[0]]) + 1)}, kind, true
		}
		if end < 0 {
			break
		}
		src = src[end+1:]
		line++
	}
	return model.Pos{}, "", false
}

// commentStart is where a YAML comment starts on a line (a # at the start
// or after a blank, outside quotes), or -1.
func commentStart(line []byte) int {
	var quote byte
	for i, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return -1
}

// templateDiagnostic is the one diagnostic a template gets, instead of an
// error per placeholder.
func templateDiagnostic(pos model.Pos, kind string) model.Diagnostic {
	return model.Diagnostic{Code: CodeSyntax, Severity: model.Error, Pos: pos, Fatal: true,
		Message: fmt.Sprintf("this looks like a template (%s): render it first, or exclude it", kind)}
}
