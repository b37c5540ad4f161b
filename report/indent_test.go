package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentCompact writes what json.Encoder with SetIndent writes, on values
// whose strings hold JSON's punctuation, escapes and quotes, and on empty
// and nested objects and arrays.
func TestIndentCompactAsEncoder(t *testing.T) {
	values := []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{map[string]any{}, []any{[]any{}}}},
		[]any{1, -2.5e-10, true, false, nil, "x"},
		map[string]any{"s": `{"not": [an, object]}`, "q": `a "quoted" \ back\slash`, "e": "\t\n\u2028<&>", "u": "é🙂"},
		map[string]any{`k"ey`: map[string]any{"x,y": []any{"]", "[", "}", "{", ":", ","}}},
		struct {
			Name  string   `json:"name"`
			List  []string `json:"list,omitempty"`
			Inner *struct {
				N int `json:"n"`
			} `json:"inner"`
		}{Name: "n\\", List: []string{"a", ""}},
	}
	for _, prefix := range []string{"", "  ", "    "} {
		for _, v := range values {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent(prefix, "  ")
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			got, err := newIndenter(prefix).indent(v)
			if err != nil {
				t.Fatal(err)
			}
			if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
				t.Errorf("prefix %q:\n got %s\nwant %s", prefix, got, w)
			}
		}
	}
}
