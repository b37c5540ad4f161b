package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The document written part by part is byte for byte what an Encoder with
// two-space indentation writes for the whole: empty and full lists, an
// omitted field, HTML characters and invalid UTF-8 in strings.
func TestJSONDocWrittenInPartsIsTheEncoders(t *testing.T) {
	full := jsonDoc{
		Version: 1, Tool: jsonTool{Name: "proxylint", Version: "v1 <dev> & co"},
		Targets: []string{"nginx 1.18 or newer", "envoy:1.33"},
		Read:    ReadStats{Files: 3, Included: 2, NotFollowed: 1},
		Findings: []jsonFinding{
			{Rule: "a", Severity: "warning", Message: "x < y && \"z\"\n\u2028", File: "nginx.conf", Line: 3, Column: 5,
				Related:  []jsonRelated{{File: "b.conf", Line: 1, Column: 1, Message: "m"}},
				FixEdits: []jsonEdit{{File: "nginx.conf", Start: 1, End: 2, Text: "keepalive 16;\n"}}},
			{Rule: "b", Severity: "note", Message: "\xff", File: "\xfe.conf", FileBase64: []byte("\xfe.conf"),
				Suppressed: &jsonSuppression{File: "nginx.conf", Line: 2, Reason: "why"}},
		},
		Summary: jsonSummary{Errors: 1, Notes: 1},
	}
	empty := jsonDoc{Version: 1, Tool: jsonTool{Name: "proxylint"}, Findings: []jsonFinding{}}
	for name, doc := range map[string]jsonDoc{"full": full, "empty": empty} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeJSONDoc(&got, &doc); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: written in parts:\n%s\nwant:\n%s", name, got.String(), want.String())
		}
	}
}
