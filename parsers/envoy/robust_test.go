package envoy

import (
	"math/rand"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

// fast loads src and fails when it takes far longer than expected (limit,
// for a quiet machine) times a margin that only an expansion of the input,
// never a slow machine, can exceed: bad input must be refused, not
// expanded. Speed itself is measured by the benchmarks.
func fast(t *testing.T, name, src string, limit time.Duration) Result {
	t.Helper()
	start := time.Now()
	r := LoadBytes(name, []byte(src), Options{})
	if el := time.Since(start); el > 30*limit {
		t.Errorf("%s took %v (more than 30 × %v)", name, el, limit)
	}
	return r
}

// wantPositioned checks that loading failed fatally with every diagnostic
// on a real line, and no proxy pretends to be complete.
func wantPositioned(t *testing.T, r Result, lines int) {
	t.Helper()
	fatal := false
	for _, d := range r.Diagnostics {
		if d.Pos.Line < 1 || int(d.Pos.Line) > lines || d.Pos.Col < 1 {
			t.Errorf("diagnostic off the file (%d lines): %d:%d %s", lines, d.Pos.Line, d.Pos.Col, d.Message)
		}
		if strings.Contains(d.Message, "internal error") {
			t.Errorf("the loader crashed: %s", d.Message)
		}
		fatal = fatal || d.Fatal
	}
	if !fatal {
		t.Errorf("no fatal diagnostic; got %v", diagStrings(r))
	}
}

func TestAliasBomb(t *testing.T) {
	// 272 bytes that expand to 10^9 strings.
	bomb := `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
`
	r := fast(t, "bomb.yaml", bomb, 200*time.Millisecond)
	wantPositioned(t, r, 7)
	wantDiag(t, r, 5, 8, CodeSyntax, "aliases expand this document")
}

func TestAliasesWithinBudget(t *testing.T) {
	// Reusing a block with an alias and a merge key is ordinary YAML.
	src := `x-timeouts: &timeouts
  connect_timeout: 1s
  type: STATIC
static_resources:
  clusters:
  - <<: *timeouts
    name: a
  - <<: *timeouts
    name: b
    connect_timeout: 2s
`
	r := loadString(t, "alias.yaml", src)
	// x-timeouts is not a bootstrap field: that is the only complaint.
	wantDiag(t, r, 1, 1, CodeInvalid, `unknown field "x-timeouts"`)
	p := onlyProxy(t, r)
	if len(p.Upstreams) != 2 {
		t.Fatalf("upstreams %d", len(p.Upstreams))
	}
	at(t, "a connect (from the anchor)", p.Upstreams[0].ConnectTimeout, time.Second, 2, 3, false)
	at(t, "b connect (its own)", p.Upstreams[1].ConnectTimeout, 2*time.Second, 10, 5, false)
}

func TestDeepNesting(t *testing.T) {
	const depth = 100000
	cases := map[string]string{
		"flow.yaml":  "a: " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n",
		"deep.json":  strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth),
		"block.yaml": deepBlock(300),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			r := fast(t, name, src, 2*time.Second)
			wantPositioned(t, r, strings.Count(src, "\n")+1)
		})
	}
}

// deepBlock nests block mappings n deep.
func deepBlock(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i))
		b.WriteString("k:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "v: 1\n")
	return b.String()
}

func TestGarbage(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 4096)
	rng.Read(random)
	cases := map[string]string{
		"empty.yaml":        "",
		"blank.yaml":        "\n\n   \n",
		"binary.yaml":       string(random),
		"nul.yaml":          "static_resources:\n  clusters: \x00\n",
		"truncated.json":    `{"static_resources": {"clusters": [{"name": "a", "connect_timeout": "1`,
		"trailing.json":     `{"configs": []} {"configs": []}`,
		"bad-utf8.yaml":     "static_resources:\n  clusters:\n  - name: \xff\xfe\n",
		"tabs.yaml":         "static_resources:\n\tclusters: []\n",
		"scalar.yaml":       "just a string\n",
		"number.json":       "12345",
		"template.yaml":     "{% if x %}\nstatic_resources: {}\n{% endif %}\n",
		"gotemplate.json":   "{\n  {{- if .x }}\n  \"a\": 1\n}\n",
		"huge-int.yaml":     "static_resources:\n  clusters:\n  - name: a\n    per_connection_buffer_limit_bytes: 99999999999999999999999\n",
		"bad-anchor.yaml":   "a: *nothing\n",
		"self-alias.yaml":   "a: &x [*x]\n",
		"merge-scalar.yaml": "a:\n  <<: 1\n",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			r := fast(t, name, src, time.Second)
			wantPositioned(t, r, strings.Count(src, "\n")+1)
		})
	}
}

func TestTruncatedJSONPosition(t *testing.T) {
	r := loadString(t, "t.json", "{\n  \"configs\": [\n    {\"a\": 1}\n    {\"b\": 2}\n  ]\n}\n")
	wantDiag(t, r, 4, 5, CodeSyntax, "expected ',' or ']'")
}

func TestNoPanicEscapes(t *testing.T) {
	// Whatever happens inside, the caller gets diagnostics, not a panic.
	r := LoadBytes("x.yaml", []byte("static_resources: {clusters: [{name: a, connect_timeout: 1s}]}\n"), Options{Target: model.Target{Product: model.Nginx}})
	if p := onlyProxy(t, r); p.Target.Product != model.Envoy {
		t.Errorf("an Envoy proxy must target Envoy, got %v", p.Target)
	}
}

// The YAML reader puts an empty value after the last line break, on a
// line a file that does not end with one does not have: it is placed at
// the end of the input.
func TestEmptyValueAtTheEndOfTheInput(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int32
	}{{"---", 1, 4}, {"---\n", 2, 1}} {
		r := LoadBytes("end.yaml", []byte(c.src), Options{})
		if len(r.Diagnostics) != 1 {
			t.Errorf("%q: want one diagnostic, got %v", c.src, diagStrings(r))
			continue
		}
		wantDiag(t, r, int(c.line), int(c.col), CodeInvalid, "not an Envoy configuration proxylint can read")
	}
}

// FuzzLoad checks that no input crashes or hangs the loader, and that
// every diagnostic points into the file.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(clusterYAML))
	f.Add([]byte(dumpJSON))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte(`{"resources": [{"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "x"}]}`))
	// Extensions whose settings are read and validated.
	f.Add([]byte(extensionsYAML))
	f.Fuzz(func(t *testing.T, src []byte) {
		r := LoadBytes("fuzz.yaml", src, Options{})
		// Lines as the loader reads them (a lone CR breaks a line).
		lines := strings.Count(string(r.File.Source), "\n") + 1
		for _, d := range r.Diagnostics {
			if strings.Contains(d.Message, "internal error") {
				t.Fatalf("crash: %s", d.Message)
			}
			if d.Pos.Line < 1 || int(d.Pos.Line) > lines {
				t.Fatalf("diagnostic off the file: %d:%d %s", d.Pos.Line, d.Pos.Col, d.Message)
			}
		}
	})
}

func TestGCRestored(t *testing.T) {
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	loadString(t, "c.yaml", clusterYAML)
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GC percent after a load = %d, want 77", got)
	}
}

// TestLoneCarriageReturn: YAML breaks lines at a lone CR (old Mac files);
// the loader reads them so, and reports and quotes the same lines.
func TestLoneCarriageReturn(t *testing.T) {
	r := LoadBytes("cr.yaml", []byte("static_resources:\r  clusters:\r  - name: a\r    conect_timeout: 1s\r"), Options{})
	if got := strings.Count(string(r.File.Source), "\n"); got != 4 {
		t.Fatalf("%d lines, want 4", got)
	}
	if len(r.Diagnostics) == 0 || r.Diagnostics[0].Pos.Line != 4 {
		t.Fatalf("want the typo on line 4, got %v", r.Diagnostics)
	}
}
