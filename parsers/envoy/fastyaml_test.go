package envoy

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/bench/gen"
)

// sameAsGeneral checks that when the fast reader accepts src, it builds
// exactly the tree the general YAML reader builds, and reports whether it
// accepted it.
func sameAsGeneral(t testing.TB, name string, src []byte) bool {
	t.Helper()
	fast, ok := parseYAMLFast(src)
	if !ok {
		return false
	}
	docs, _, err := parseYAMLGeneral(src)
	if err != nil {
		t.Fatalf("%s: the fast reader accepted what the YAML reader refuses: %v\n%s", name, err, src)
	}
	if len(docs) != 1 {
		t.Fatalf("%s: the fast reader read one document, the YAML reader %d", name, len(docs))
	}
	if !sameTree(fast, docs[0], map[[2]*node]bool{}) {
		t.Fatalf("%s: trees differ\nfast:    %s\ngeneral: %s\n%s", name, dumpTree(fast), dumpTree(docs[0]), src)
	}
	return true
}

// sameTree reports whether a and b are the same tree: every field of
// every node alike, a scalar's text by its bytes and the entries one by
// one (p is where the text or the entries are, which two alike trees do
// not share). seen holds the pairs already compared, an alias's node
// being reached more than once.
func sameTree(a, b *node, seen map[[2]*node]bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	if seen[[2]*node{a, b}] {
		return true
	}
	seen[[2]*node{a, b}] = true
	x, y := *a, *b
	x.p, y.p = nil, nil
	if x != y || a.text() != b.text() {
		return false
	}
	ak, bk := a.kids(), b.kids()
	for i := range ak {
		ka, kb := ak[i], bk[i]
		ka.key, ka.val, kb.key, kb.val = nil, nil, nil, nil
		if ka != kb || !sameTree(ak[i].key, bk[i].key, seen) || !sameTree(ak[i].val, bk[i].val, seen) {
			return false
		}
	}
	return true
}

func dumpTree(n *node) string {
	var b strings.Builder
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		if n == nil {
			b.WriteString("<nil>\n")
			return
		}
		b.WriteString(strings.Repeat("  ", depth))
		tags := []string{"", "str", "int", "float", "bool", "null"}
		b.WriteString(strings.Join([]string{string("?msq"[n.kind]), n.text(), tags[n.tag], string(rune('0' + n.style)), itoa(int(n.line)), itoa(int(n.col))}, "|"))
		b.WriteString("\n")
		for _, k := range n.kids() {
			if k.key != nil {
				walk(k.key, depth+1)
			}
			walk(k.val, depth+2)
		}
	}
	walk(n, 0)
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// fastYAMLCases are small documents on both sides of what the fast reader
// takes.
var fastYAMLCases = []string{
	"a: b\n",
	"a: 1\nb: 2.5\nc: true\nd: null\ne: ~\nf: -1\ng: 0x1F\nh: .inf\ni: 1e3\nj: on\nk: 'x'\nl: \"y\"\n",
	"a:\n  b: c\n  d:\n  - 1\n  - 2\ne: f\n",
	"a:\n- b: 1\n  c: 2\n- d\n- [1, 2, \"x\"]\n- {k: v, q: 'w'}\n",
	"  a: b\n  c: d\n",
	"- a\n- b: c\n  d: e\n",
	"# comment\na: b # trailing\n\n  # indented comment\nc: 'd' # c\n",
	"a: { b: { c: [ d, e ] }, f: [] , g: {} }\n",
	"a: http://x:80/y\nb: ::1\nc: a#b\nd: -x\ne: ?y\nf: :z\n",
	"a: b: c\n",
	"a: b\n  c\n",
	"a:\n  b\nc: d\n",
	"a: &x 1\nb: *x\n",
	"<<: {a: b}\n",
	"a: b\na: c\n",
	"a: !!str 1\n",
	"a: |\n  x\n",
	"a: >\n  x\n",
	"a:\nb: c\n",
	"---\na: b\n",
	"a: b\n---\nc: d\n",
	"a: [b,\n  c]\n",
	"a: \"x\\ty\"\n",
	"a: \"\\\"q\\\" \\\\ \\/ \\n \\r\"\n",
	"a: \"\\x41 \\u00e9\"\n",
	"a: 'it''s'\n",
	"a:\tb\n",
	"a: b\r\n",
	"a: café\n",
	"- - a\n",
	"-\n  a: b\n",
	"a: [b, ]\n",
	"a: [b c, d]\n",
	"a: {b: c, b: d}\n",
	"a: {b}\n",
	"a: [b: c]\n",
	"a: [{b: c}, [d]]\n",
	"\"a\": b\n'c': d\n",
	"\"a\" : b\n",
	"a : b\n",
	"a: b\n c: d\n",
	"a:\n    b: c\n  d: e\n",
	"a:\n  - b\n  -  c\n",
	"a: - b\n",
	"a: [b]c\n",
	"a: 'b' c\n",
	"a b: c d\n",
	"a: b #c\n#d\n",
	"a: '#b'\n",
	"a: b,c\n",
	"a: @b\n",
	"a: `b\n",
	"a: %b\n",
	"% a\n",
	"...\n",
	"a:  \n  b: c\n",
	"key: [a, {b: [c, {d: e}]}]\n",
	"[a, b]\n",
	"{a: b}\n",
	"scalar\n",
	"",
	"# only a comment\n",
	"a: 0o17\nb: 017\nc: 1_000\nd: .5\ne: +1\nf: 1.\ng: TRUE\nh: True\ni: Null\nj: NULL\nk: yes\nl: .NaN\nm: -.Inf\n",
}

func TestFastYAMLMatchesTheYAMLReader(t *testing.T) {
	accepted := 0
	for i, c := range fastYAMLCases {
		if sameAsGeneral(t, "case "+itoa(i), []byte(c)) {
			accepted++
		}
	}
	if accepted < 20 {
		t.Errorf("the fast reader took %d of %d cases; it should take the plain ones", accepted, len(fastYAMLCases))
	}
	src, err := os.ReadFile("testdata/bootstrap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !sameAsGeneral(t, "testdata/bootstrap.yaml", src) {
		t.Error("the fast reader refused testdata/bootstrap.yaml")
	}
	b := gen.EnvoyBootstrap{Listeners: 3, RoutesPerListener: 7, Clusters: 5}.YAML()
	if !sameAsGeneral(t, "bench/gen bootstrap", b) {
		t.Error("the fast reader refused the generated bootstrap")
	}
}

// TestFastYAMLCorpus compares the two readers on every YAML file of the
// shared corpus.
func TestFastYAMLCorpus(t *testing.T) {
	dir := requireCorpus(t)
	n, fast := 0, 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml")) {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if sameAsGeneral(t, p, src) {
			fast++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the fast reader took %d of %d YAML files", fast, n)
}

func FuzzFastYAML(f *testing.F) {
	for _, c := range fastYAMLCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sameAsGeneral(t, "fuzz", src)
	})
}

// plainTag skips the YAML reader's resolver for scalars whose first
// character rules out anything but a string; it must type every plain
// scalar as the resolver does.
func TestPlainTagMatchesTheResolver(t *testing.T) {
	// Each printable first character, alone and before the rest of a
	// word the resolver knows (true, false, null, ...) or of a number.
	var texts []string
	for c := 0x20; c < 0x7f; c++ {
		for _, word := range []string{"", "true", "false", "null", "0", "1.5", "x", "_1", "e3", "0s", ".inf", "yes", "on", "off"} {
			rest := word
			if len(word) > 1 && word[0] >= 'a' {
				rest = word[1:]
			}
			texts = append(texts, string(rune(c))+rest)
		}
	}
	texts = append(texts, "", "~", "<<", "0x1F", "-.inf", "+1", "2001-12-14", "1_000", ".5", "Yes", "NULL", "on",
		"True", "TRUE", "tRUE", "False", "FALSE", "falsE", "Null", "nULL", "~~", "~x", "name", "type", "timeout", "o", "y", "N", "t", "F", "O")
	for _, s := range texts {
		if got, want := plainTag(s), scalarTag(&yaml.Node{Kind: yaml.ScalarNode, Value: s}); got != want {
			t.Errorf("%q: plainTag %d, the resolver %d", s, got, want)
		}
	}
}
