package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"
)

// JSONVersion is the version of the JSON document's schema. It changes only
// when a field is removed or changes meaning; new fields may appear.
const JSONVersion = 1

// The JSON document; docs/json-format.md describes it field by field.
type jsonDoc struct {
	Version  int           `json:"version"`
	Tool     jsonTool      `json:"tool"`
	Targets  []string      `json:"targets,omitempty"`
	Read     ReadStats     `json:"read"`
	Findings []jsonFinding `json:"findings"`
	Summary  jsonSummary   `json:"summary"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonFinding struct {
	Rule        string           `json:"rule"`
	Severity    string           `json:"severity"`
	Message     string           `json:"message"`
	File        string           `json:"file"`
	FileBase64  []byte           `json:"file_base64,omitempty"`
	Line        int              `json:"line"`
	Column      int              `json:"column"`
	EndLine     int              `json:"end_line,omitempty"`
	EndColumn   int              `json:"end_column,omitempty"`
	Related     []jsonRelated    `json:"related,omitempty"`
	Fix         string           `json:"fix,omitempty"`
	FixApplies  string           `json:"fix_applicability,omitempty"`
	FixEdits    []jsonEdit       `json:"fix_edits,omitempty"`
	Fingerprint string           `json:"fingerprint"`
	Suppressed  *jsonSuppression `json:"suppressed,omitempty"`
}

// jsonEdit is one edit of a finding's fix: replace the bytes [start, end)
// of the file (line and column as findings count them) with text.
type jsonEdit struct {
	File        string `json:"file"`
	FileBase64  []byte `json:"file_base64,omitempty"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	StartLine   int    `json:"start_line"`
	StartColumn int    `json:"start_column"`
	EndLine     int    `json:"end_line"`
	EndColumn   int    `json:"end_column"`
	Text        string `json:"text"`
}

type jsonRelated struct {
	File       string `json:"file,omitempty"`
	FileBase64 []byte `json:"file_base64,omitempty"`
	Line       int    `json:"line,omitempty"`
	Column     int    `json:"column,omitempty"`
	Message    string `json:"message"`
}

type jsonSuppression struct {
	File       string `json:"file"`
	FileBase64 []byte `json:"file_base64,omitempty"`
	Line       int    `json:"line"`
	Reason     string `json:"reason"`
}

type jsonSummary struct {
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Notes      int `json:"notes"`
	Suppressed int `json:"suppressed"`
	Known      int `json:"known"`
	Skipped    int `json:"skipped"`
}

// rawName is the bytes of a file name that is not valid UTF-8, which a
// JSON string cannot hold (the encoder would write U+FFFD for each
// invalid byte); nil for every other name. encoding/json writes it in
// base64.
func rawName(name string) []byte {
	if utf8.ValidString(name) {
		return nil
	}
	return []byte(name)
}

// jsonName is a file name as a JSON string holds it: unchanged when it is
// valid UTF-8 (the encoder escapes control characters), else with each
// byte that is not UTF-8 written \xHH, as the text report writes it, and
// never as U+FFFD; file_base64 (rawName) then carries the exact bytes.
func jsonName(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteString(`\x`)
			b.WriteString(hex2(name[i]))
		} else {
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	return b.String()
}

// JSON writes the findings as one JSON document (docs/json-format.md).
func JSON(w io.Writer, in *Input) error {
	fps := Fingerprints(in)
	doc := jsonDoc{
		Targets:  in.Targets,
		Read:     in.Read,
		Version:  JSONVersion,
		Tool:     jsonTool{Name: "proxylint", Version: in.Version},
		Findings: make([]jsonFinding, 0, len(in.Findings)),
	}
	for i, f := range in.Findings {
		jf := jsonFinding{
			Rule:        f.Rule,
			Severity:    f.Severity.String(),
			Message:     f.Message,
			File:        jsonName(in.RelPath(f.Pos.File)),
			FileBase64:  rawName(in.RelPath(f.Pos.File)),
			Line:        int(f.Pos.Line),
			Column:      int(f.Pos.Col),
			Fix:         f.Fix.Message,
			Fingerprint: fps[i],
		}
		if f.End.IsValid() {
			jf.EndLine, jf.EndColumn = int(f.End.Line), int(f.End.Col)
		}
		if f.Fix.Message != "" || len(f.Fix.Edits) > 0 {
			jf.FixApplies = f.Fix.Applicability.String()
		}
		for _, e := range f.Fix.Edits {
			s, end, _ := in.editRange(e)
			jf.FixEdits = append(jf.FixEdits, jsonEdit{File: jsonName(in.RelPath(e.File)), FileBase64: rawName(in.RelPath(e.File)), Start: e.Start, End: e.End,
				StartLine: int(s.Line), StartColumn: int(s.Col), EndLine: int(end.Line), EndColumn: int(end.Col), Text: e.New})
		}
		for _, r := range f.Related {
			jf.Related = append(jf.Related, jsonRelated{File: jsonName(in.RelPath(r.Pos.File)), FileBase64: rawName(in.RelPath(r.Pos.File)), Line: int(r.Pos.Line), Column: int(r.Pos.Col), Message: r.Message})
		}
		if s := f.Suppression; s != nil {
			jf.Suppressed = &jsonSuppression{File: jsonName(in.RelPath(s.Pos.File)), FileBase64: rawName(in.RelPath(s.Pos.File)), Line: int(s.Pos.Line), Reason: s.Reason}
		}
		doc.Findings = append(doc.Findings, jf)
	}
	c := Count(in.Findings)
	doc.Summary = jsonSummary{Errors: c.Errors, Warnings: c.Warnings, Notes: c.Notes, Suppressed: c.Suppressed, Known: in.Known, Skipped: in.Skipped}
	return writeJSONDoc(w, &doc)
}

// writeJSONDoc writes what an Encoder with two-space indentation writes
// for doc, one part at a time: the findings of a large run are several
// megabytes, which marshalling and then indenting the whole document
// would copy twice into buffers grown step by step.
func writeJSONDoc(w io.Writer, doc *jsonDoc) error {
	// A bufio.Writer keeps its first error and Flush returns it, so the
	// writes below need no checks of their own.
	bw := bufio.NewWriterSize(w, 64<<10)
	put := func(s string) { _, _ = bw.WriteString(s) }
	putb := func(b []byte) { _, _ = bw.Write(b) }
	top := newIndenter("  ")
	field := func(name string, v any, last bool) error {
		b, err := top.indent(v)
		if err != nil {
			return err
		}
		put(`  "` + name + `": `)
		putb(b)
		if !last {
			put(",")
		}
		put("\n")
		return nil
	}
	put("{\n")
	if err := field("version", doc.Version, false); err != nil {
		return err
	}
	if err := field("tool", doc.Tool, false); err != nil {
		return err
	}
	if len(doc.Targets) > 0 {
		if err := field("targets", doc.Targets, false); err != nil {
			return err
		}
	}
	if err := field("read", doc.Read, false); err != nil {
		return err
	}
	if len(doc.Findings) == 0 {
		put(`  "findings": [],` + "\n")
	} else {
		put(`  "findings": [` + "\n")
		var b []byte
		for i := range doc.Findings {
			b = appendFinding(b[:0], &doc.Findings[i], "    ")
			put("    ")
			putb(b)
			if i < len(doc.Findings)-1 {
				put(",")
			}
			put("\n")
		}
		put("  ],\n")
	}
	if err := field("summary", doc.Summary, true); err != nil {
		return err
	}
	put("}\n")
	return bw.Flush()
}

// indenter marshals values as they stand at one depth of an indented
// document, into buffers it reuses: what json.Encoder with SetIndent
// writes, byte for byte. The encoder marshals a value and then runs it
// through json.Indent's scanner, which took half of the JSON writer's time
// on a large report; compact JSON has no space outside its strings, so
// indenting it needs only to know where strings are.
type indenter struct {
	prefix  string
	compact bytes.Buffer
	enc     *json.Encoder
	out     []byte
}

func newIndenter(prefix string) *indenter {
	x := &indenter{prefix: prefix}
	x.enc = json.NewEncoder(&x.compact)
	return x
}

// indentUnit is what each level of nesting adds.
const indentUnit = "  "

// indent returns v marshalled, without the encoder's final newline; the
// bytes are valid until the next call.
func (x *indenter) indent(v any) ([]byte, error) {
	x.compact.Reset()
	if err := x.enc.Encode(v); err != nil {
		return nil, err
	}
	src := x.compact.Bytes()
	src = src[:len(src)-1]
	x.out = indentCompact(x.out[:0], src, x.prefix)
	return x.out, nil
}

// indentCompact appends compact JSON src to dst indented as json.Indent
// indents it with indentUnit: a newline, the prefix and the depth's indent
// after each "{", "[" and ",", and before each "}" and "]", except that an
// empty object or array stays "{}" or "[]"; ": " between key and value.
func indentCompact(dst, src []byte, prefix string) []byte {
	depth := 0
	needIndent := false
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indentUnit...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			newline()
		}
		switch c {
		case '"':
			// The string, escapes and all, up to its closing quote.
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
