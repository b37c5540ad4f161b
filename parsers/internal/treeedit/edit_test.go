package treeedit

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

func applyEdits(t testing.TB, src []byte, edits []model.Edit) []byte {
	t.Helper()
	sorted := append([]model.Edit{}, edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out bytes.Buffer
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(src) {
			t.Fatalf("edit %+v overlaps another or lies outside the file", e)
		}
		out.Write(src[at:e.Start])
		out.WriteString(e.New)
		at = e.End
	}
	out.Write(src[at:])
	return out.Bytes()
}

// posOf is the position of the n-th (from 1) occurrence of needle.
func posOf(t testing.TB, src, needle string, n int) model.Pos {
	t.Helper()
	off := -1
	for i := 0; i < n; i++ {
		j := strings.Index(src[off+1:], needle)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", needle, n)
		}
		off += j + 1
	}
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return model.Pos{File: "f", Line: int32(strings.Count(src[:start], "\n") + 1), Col: int32(utf8.RuneCountInString(src[start:off]) + 1)}
}

type treeCase struct {
	name     string
	fallback Case
	src      string
	edit     func(e *Editor, at func(needle string, n int) model.Pos) ([]model.Edit, error)
	want     string
}

var treeCases = []treeCase{
	{
		name: "a field before another, block YAML in snake_case",
		src: `typed_config:
  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
  stat_prefix: ingress
  common_http_protocol_options:
    max_connection_duration: 60s # rotate
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("common_http_protocol_options", 1), model.Before, "http1_safe_max_connection_duration", model.Bool(true))
		},
		want: `typed_config:
  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
  stat_prefix: ingress
  http1_safe_max_connection_duration: true
  common_http_protocol_options:
    max_connection_duration: 60s # rotate
`,
	},
	{
		name: "the same field in a camelCase file",
		src: `typedConfig:
  '@type': type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
  statPrefix: ingress
  commonHttpProtocolOptions:
    maxConnectionDuration: 60s
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("commonHttpProtocolOptions", 1), model.Before, "http1_safe_max_connection_duration", model.Bool(true))
		},
		want: `typedConfig:
  '@type': type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
  statPrefix: ingress
  http1SafeMaxConnectionDuration: true
  commonHttpProtocolOptions:
    maxConnectionDuration: 60s
`,
	},
	{
		name: "a scalar set, its comment kept",
		src:  "hcm:\n  http1_safe_max_connection_duration: false # for now\n  stat_prefix: x\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetValue(at("http1_safe", 1), model.Bool(true))
		},
		want: "hcm:\n  http1_safe_max_connection_duration: true # for now\n  stat_prefix: x\n",
	},
	{
		name: "a quoted string set keeps its quotes",
		src:  "retry_policy:\n  retry_on: 'connect-failure'\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetValue(at("retry_on", 1), model.String("connect-failure,refused-stream"))
		},
		want: "retry_policy:\n  retry_on: 'connect-failure,refused-stream'\n",
	},
	{
		name: "a string that YAML would read as another type is quoted",
		src:  "a:\n  b: x\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetValue(at("b", 1), model.String("on"))
		},
		want: "a:\n  b: \"on\"\n",
	},
	{
		name: "a field at the end of a flow mapping",
		src:  "common_http_protocol_options: {max_connection_duration: 60s}\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("{", 1), model.AtEnd, "idle_timeout", model.String("30s"))
		},
		want: "common_http_protocol_options: {max_connection_duration: 60s, idle_timeout: 30s}\n",
	},
	{
		name: "a field in an empty flow mapping",
		src:  "a: {}\nb: 1\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("{", 1), model.AtEnd, "c", model.Number("2"))
		},
		want: "a: {c: 2}\nb: 1\n",
	},
	{
		name: "a field before another in one-line JSON",
		src:  `{"name": "l", "typed_config": {"stat_prefix": "in", "common_http_protocol_options": {"max_connection_duration": "60s"}}}`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at(`"common_http_protocol_options"`, 1), model.Before, "http1_safe_max_connection_duration", model.Bool(true))
		},
		want: `{"name": "l", "typed_config": {"stat_prefix": "in", "http1_safe_max_connection_duration": true, "common_http_protocol_options": {"max_connection_duration": "60s"}}}`,
	},
	{
		name: "a field at the end of pretty JSON in camelCase",
		src:  "{\n  \"name\": \"c\",\n  \"connectTimeout\": \"1s\"\n}\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("{", 1), model.AtEnd, "common_http_protocol_options", model.Map(model.F("idle_timeout", model.String("50s"))))
		},
		want: "{\n  \"name\": \"c\",\n  \"connectTimeout\": \"1s\",\n  \"commonHttpProtocolOptions\": {\"idleTimeout\": \"50s\"}\n}\n",
	},
	{
		name: "a field at the start of pretty JSON",
		src:  "{\n    \"b\": 1\n}",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("{", 1), model.AtStart, "a", model.String("x"))
		},
		want: "{\n    \"a\": \"x\",\n    \"b\": 1\n}",
	},
	{
		name: "an item appended to a JSON list",
		src:  `{"retry_on": ["5xx", "reset"]}`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Append(at("[", 1), model.String("connect-failure"))
		},
		want: `{"retry_on": ["5xx", "reset", "connect-failure"]}`,
	},
	{
		name:     "a mapping appended to a block list, Kubernetes",
		fallback: Camel,
		src: `spec:
  http:
  - match:
    - uri:
        prefix: /a
    route:
    - destination:
        host: a
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetField(at("match", 1), "retries", model.Map(model.F("attempts", model.Number("2")), model.F("retry_on", model.String("connect-failure,refused-stream"))))
		},
		want: `spec:
  http:
  - match:
    - uri:
        prefix: /a
    route:
    - destination:
        host: a
    retries:
      attempts: 2
      retryOn: connect-failure,refused-stream
`,
	},
	{
		name:     "a field before the first one of a list item",
		fallback: Camel,
		src:      "http:\n- name: a\n  route: []\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("name", 1), model.Before, "timeout", model.String("10s"))
		},
		want: "http:\n- timeout: 10s\n  name: a\n  route: []\n",
	},
	{
		name: "an item appended to an indented block list",
		src:  "clusters:\n  - name: a\n    connect_timeout: 1s\n  - name: b\n    connect_timeout: 1s\nother: 1\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Append(at("- name: a", 1), model.Map(model.F("name", model.String("c")), model.F("connect_timeout", model.String("2s"))))
		},
		want: "clusters:\n  - name: a\n    connect_timeout: 1s\n  - name: b\n    connect_timeout: 1s\n  - name: c\n    connect_timeout: 2s\nother: 1\n",
	},
	{
		name: "a list under a new field, indentless lists",
		src:  "route:\n  cluster: a\nretry_on:\n- reset\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("cluster", 1), model.After, "hosts", model.List(model.String("a"), model.String("b")))
		},
		want: "route:\n  cluster: a\n  hosts:\n  - a\n  - b\nretry_on:\n- reset\n",
	},
	{
		name: "CRLF line endings and four-space indentation",
		src:  "route:\r\n    cluster: a\r\n    timeout: 5s\r\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetField(at("cluster", 1), "retry_policy", model.Map(model.F("num_retries", model.Number("2"))))
		},
		want: "route:\r\n    cluster: a\r\n    timeout: 5s\r\n    retry_policy:\r\n        num_retries: 2\r\n",
	},
	{
		name: "after a field whose value is a block scalar, at the end of a file without a line break",
		src:  "a:\n  script: |\n    line one\n\n    line two\n  b: 1",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("b", 1), model.After, "c", model.Number("2"))
		},
		want: "a:\n  script: |\n    line one\n\n    line two\n  b: 1\n  c: 2",
	},
	{
		name: "after a block scalar",
		src:  "a:\n  script: |\n    line one\n\n    line two\n  b: 1\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("script", 1), model.After, "c", model.Number("2"))
		},
		want: "a:\n  script: |\n    line one\n\n    line two\n  c: 2\n  b: 1\n",
	},
	{
		name:     "the second document of a manifest",
		fallback: Camel,
		src:      "apiVersion: v1\nkind: Service\n---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  hosts: [a]\n  http:\n  - route:\n    - destination: {host: a}\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetField(at("route", 1), "timeout", model.String("10s"))
		},
		want: "apiVersion: v1\nkind: Service\n---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  hosts: [a]\n  http:\n  - route:\n    - destination: {host: a}\n    timeout: 10s\n",
	},
	{
		name: "an existing field set through SetField in flow style",
		src:  "r: {retry_on: reset, num_retries: 1}\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetField(at("{", 1), "numRetries", model.Number("2"))
		},
		want: "r: {retry_on: reset, num_retries: 2}\n",
	},
	{
		name: "a field removed from a block mapping",
		src:  "a:\n  b: 1 # one\n  c:\n    d: 2\n  e: 3\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.RemoveField(at("c", 1))
		},
		want: "a:\n  b: 1 # one\n  e: 3\n",
	},
	{
		name: "fields removed from JSON",
		src:  `{"a": 1, "b": [2], "c": {"d": 3}}`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			x, err := e.RemoveField(at(`"a"`, 1))
			if err != nil {
				return nil, err
			}
			y, err := e.RemoveField(at(`"c"`, 1))
			return append(x, y...), err
		},
		want: `{"b": [2]}`,
	},
	{
		name: "a nested value replaced",
		src:  "a:\n  b:\n    c: 1\n  d: 2\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetValue(at("b", 1), model.Map(model.F("x", model.String("y z"))))
		},
		want: "a:\n  b:\n    x: y z\n  d: 2\n",
	},
	{
		name: "a mapping that a default points at",
		src:  "- name: a\n  connect_timeout: 1s\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertField(at("name", 1), model.AtEnd, "common_http_protocol_options", model.Map(model.F("idle_timeout", model.String("50s"))))
		},
		want: "- name: a\n  connect_timeout: 1s\n  common_http_protocol_options:\n    idle_timeout: 50s\n",
	},
	{
		name: "an item whose value is on the line below its dash, nearer than two columns",
		src:  "-\n 0\n- 1\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetValue(at("0", 1), model.List(model.String("x"), model.Map(model.F("k", model.Null()), model.F("j", model.Number("2")))))
		},
		want: "-\n - x\n - k: null\n   j: 2\n- 1\n",
	},
	{
		name: "an empty item",
		src:  "-\n- 1\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.SetValue(model.Pos{File: "f", Line: 1, Col: 2}, model.Map(model.F("a", model.Number("1")), model.F("b", model.Number("2"))))
		},
		want: "- a: 1\n  b: 2\n- 1\n",
	},
}

func TestTreeEditor(t *testing.T) {
	for _, c := range treeCases {
		t.Run(c.name, func(t *testing.T) {
			got := runTreeCase(t, c)
			if got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			checkReads(t, got)
		})
	}
}

func runTreeCase(t *testing.T, c treeCase) string {
	t.Helper()
	e := New("f", []byte(c.src), c.fallback)
	edits, err := c.edit(e, func(needle string, n int) model.Pos { return posOf(t, c.src, needle, n) })
	if err != nil {
		t.Fatal(err)
	}
	return string(applyEdits(t, []byte(c.src), edits))
}

// checkReads checks that text reads as YAML (every document) and, when
// it starts as JSON, as JSON.
func checkReads(t testing.TB, text string) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("the result is not YAML: %v\n%s", err, text)
		}
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if !json.Valid([]byte(text)) {
			panic("the result is not JSON: " + text)
		}
	}
}

func TestTreeEditorRefuses(t *testing.T) {
	src := "a: &x\n  b: 1\nc: *x\nd: !!str 5\ne: one\n  two\nf: {g: 1}\nh:\n  i: 1\n"
	e := New("f", []byte(src), AsGiven)
	at := func(needle string) model.Pos { return posOf(t, src, needle, 1) }
	for name, f := range map[string]func() ([]model.Edit, error){
		"into an anchor":      func() ([]model.Edit, error) { return e.InsertField(at("b"), model.After, "z", model.Number("1")) },
		"an alias":            func() ([]model.Edit, error) { return e.SetValue(at("c"), model.Number("1")) },
		"a tagged value":      func() ([]model.Edit, error) { return e.SetValue(at("d"), model.Number("1")) },
		"a multi-line scalar": func() ([]model.Edit, error) { return e.SetValue(at("e"), model.Number("1")) },
		"a field twice":       func() ([]model.Edit, error) { return e.InsertField(at("g"), model.After, "g", model.Number("1")) },
		"no mapping":          func() ([]model.Edit, error) { return e.InsertField(at("e: "), model.AtEnd, "x", model.Number("1")) },
		"a bad number":        func() ([]model.Edit, error) { return e.SetValue(at("i"), model.Number("1, 2")) },
		"the only field":      func() ([]model.Edit, error) { return e.RemoveField(at("i")) },
		"other file":          func() ([]model.Edit, error) { return e.SetValue(model.Pos{File: "g", Line: 1, Col: 1}, model.Null()) },
	} {
		if edits, err := f(); err == nil {
			t.Errorf("%s: made %+v", name, edits)
		}
	}
	if _, err := New("f", []byte("a: [\n"), AsGiven).SetValue(model.Pos{File: "f", Line: 1, Col: 1}, model.Null()); err == nil {
		t.Error("edited a file that does not parse")
	}
	// "[k: [1]]" is a list of one mapping written without braces: a field
	// put before k would read as a second item. Its value is still set.
	pair := "j: [k: [1]]\n"
	pe := New("f", []byte(pair), AsGiven)
	if edits, err := pe.InsertField(posOf(t, pair, "k", 1), model.Before, "z", model.Number("1")); err == nil {
		t.Errorf("into a mapping without braces: made %+v", edits)
	}
	if edits, err := pe.SetValue(posOf(t, pair, "k", 1), model.Number("2")); err != nil || string(applyEdits(t, []byte(pair), edits)) != "j: [k: 2]\n" {
		t.Errorf("the value of a mapping without braces: %+v, %v", edits, err)
	}
	// YAML reads a lone carriage return as a line break: removing A
	// would take B with it.
	if edits, err := New("f", []byte("A: 1\rB: 2\r\nC: 3\n"), AsGiven).RemoveField(model.Pos{File: "f", Line: 1, Col: 1}); err == nil || !strings.Contains(err.Error(), "f:1: a carriage return") {
		t.Errorf("a lone carriage return: made %+v, error %v", edits, err)
	}
	if _, err := New("f", []byte("A: 1\r\nB: 2\r\n"), AsGiven).RemoveField(model.Pos{File: "f", Line: 1, Col: 1}); err != nil {
		t.Errorf("CRLF refused: %v", err)
	}
}

func TestTreeEditorReads(t *testing.T) {
	src := "hcm:\n  statPrefix: a\n  route: {cluster: b}\n"
	e := New("f", []byte(src), Snake)
	at := func(needle string, n int) model.Pos { return posOf(t, src, needle, n) }
	n, ok := e.Node(at("route", 1))
	if !ok || n.Key != "route" || n.Kind != model.MapValue || !n.Flow || n.Pos != at("{", 1) {
		t.Fatalf("route: %+v %v", n, ok)
	}
	if got := e.Name(at("statPrefix", 1), "use_remote_address"); got != "useRemoteAddress" {
		t.Errorf("name in hcm: %s", got)
	}
	// The flow mapping's own field is one word: its parent says camel.
	if got := e.Name(n.Pos, "cluster_header"); got != "clusterHeader" {
		t.Errorf("name in route: %s", got)
	}
	v, ok := e.Lookup(n.Pos, "cluster")
	if !ok || v.Text != "b" || v.Kind != model.StringValue {
		t.Fatalf("cluster: %+v %v", v, ok)
	}
	if got := New("g", []byte("a: 1\n"), Snake).Name(model.Pos{File: "g", Line: 1, Col: 1}, "retryOn"); got != "retry_on" {
		t.Errorf("fallback: %s", got)
	}
}

// TestMatchBracketReadsAsYAMLDoes holds the end of a flow collection where
// the YAML reader puts it: quotes and "#" inside a plain scalar are text,
// "#" after a blank, an indicator or a quoted scalar opens a comment.
func TestMatchBracketReadsAsYAMLDoes(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"{#}\n}", 5},
		{"[#]\n]", 5},
		{"{a: 1,#}\n}", 10},
		{"[\"a\"#]\n]", 8},
		{"{a: [1]#}\n}", 11},
		{"{a:#}\n}", 5},
		{"[a#]\n]", 4},
		{"[it's, b]", 9},
		{"{a: it's, b: 'x}'}", 18},
		{"{\"a\":#}\n1}", 10},
		{"[a\"b, \"c]\"]", 11},
		{"{a: b'#}\n}", 8},
		{"['a''#]']", 9},
		{"[a #]\n]", 7},
		{"[a:'x']", 7},
		{"['open", -1},
	} {
		if got := matchBracket([]byte(c.src), 0); got != c.want {
			t.Errorf("matchBracket(%q) = %d, want %d", c.src, got, c.want)
		}
	}
}
