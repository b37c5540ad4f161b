package envoy

import "testing"

// A template is refused once, at its first placeholder outside a comment,
// naming its syntax; Envoy's own %VAR% access-log commands and a # inside a
// quoted value are not placeholders.
func TestTemplateRefusedOnce(t *testing.T) {
	for _, c := range []struct {
		name, src  string
		line, col  int
		kind, none string
	}{
		{name: "envsubst", src: "# ${NOT_THIS}\nstatic_resources:\n  listeners:\n  - address: {socket_address: {port_value: ${PORT}}}\n", line: 4, col: 44, kind: "${NAME} placeholders"},
		{name: "go template", src: "static_resources:\n{{- if .Admin }}\n", line: 2, col: 1, kind: "{{ }} expressions"},
		{name: "jinja", src: "{% import 'x' as y %}\n", line: 1, col: 1, kind: "{% %} tags"},
		{name: "not a template", src: "static_resources: {}\n# format: \"%START_TIME% ${x}\"\nname: \"a # b %REQ(:PATH)%\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := LoadBytes("t.yaml", []byte(c.src), Options{})
			var tpl []string
			for _, d := range r.Diagnostics {
				if d.Code == CodeSyntax {
					tpl = append(tpl, d.Pos.String()+" "+d.Message)
				}
			}
			if c.kind == "" {
				if len(tpl) != 0 {
					t.Fatalf("refused: %v", tpl)
				}
				return
			}
			want := "t.yaml:" + itoa(c.line) + ":" + itoa(c.col) + " this looks like a template (" + c.kind + "): render it first, or exclude it"
			if len(tpl) != 1 || tpl[0] != want {
				t.Fatalf("got %v\nwant %s", tpl, want)
			}
			if len(r.Proxies) != 0 {
				t.Errorf("a template builds no model")
			}
		})
	}
}

// The quick test that skips lines must let through every line the
// expression matches.
func TestMayHoldTemplateKeepsEveryMatch(t *testing.T) {
	for _, s := range []string{
		"{{ .x }}", "a {%- if y %}", "${PORT}", "${A:-b}", "${A:=b}", "%%PORT%%",
		"port: ${P}x", "{{}}", "{%%}", "x: '%%A_B%%'",
		"no placeholder", "{ {x} }", "$ {A}", "% %A%%", "%START_TIME%", "",
	} {
		if templateMarks().MatchString(s) && !mayHoldTemplate([]byte(s)) {
			t.Errorf("%q matches the expression but was skipped", s)
		}
	}
}

func FuzzMayHoldTemplate(f *testing.F) {
	f.Add("port: ${PORT}")
	f.Add("{% if %}")
	f.Fuzz(func(t *testing.T, s string) {
		if templateMarks().MatchString(s) && !mayHoldTemplate([]byte(s)) {
			t.Errorf("%q matches the expression but was skipped", s)
		}
	})
}
