package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// marshalFinding is what the encoder writes for f in the findings list.
func marshalFinding(t *testing.T, f *jsonFinding) string {
	t.Helper()
	b, err := newIndenter("    ").indent(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// findingsOf is the findings of the JSON document for the configuration
// at paths, as JSON writes them.
func findingsOf(t *testing.T, paths []string) []jsonFinding {
	t.Helper()
	m := load.Load(paths, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	findings := rules.Run(m, &rules.Options{})
	in := &Input{Findings: findings, Files: m.Files, Rules: rules.All(), Version: "test", Dir: "/", Diagnostics: m.Diagnostics}
	var buf bytes.Buffer
	if err := JSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	var doc jsonDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Findings
}

// TestAppendFindingAsMarshal holds appendFinding to encoding/json's output
// for every finding of a generated tree and of the corpus, and for
// findings with every optional field and strings of every kind.
func TestAppendFindingAsMarshal(t *testing.T) {
	main, err := gen.NginxTree{Servers: 30}.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string][]jsonFinding{"gen-30": findingsOf(t, []string{main})}
	if corpus, err := filepath.Abs("../../shared/corpus/nginx"); err == nil {
		if _, err := os.Stat(corpus); err == nil {
			sets["corpus"] = findingsOf(t, []string{corpus})
		}
	}
	sets["crafted"] = []jsonFinding{
		{},
		{Rule: "a", Severity: "warning", Message: "x < y && \"z\"\n\u2028\u2029\t\r\b\f\x00\x1f\x7f", File: "nginx.conf", Line: 3, Column: 5,
			EndLine: 3, EndColumn: 9, Fix: "do <this> & that", FixApplies: "safe",
			Related:    []jsonRelated{{File: "b.conf", Line: 1, Column: 1, Message: "m"}, {Message: "only a message"}, {FileBase64: []byte{0xff}, File: `\xff`, Message: ""}},
			FixEdits:   []jsonEdit{{File: "nginx.conf", Start: 1, End: 2, Text: "keepalive 16;\n"}, {FileBase64: []byte("\xfe.conf"), Text: ""}},
			Suppressed: &jsonSuppression{File: "nginx.conf", Line: 2, Reason: "why \"not\""}, Fingerprint: "0123abcd"},
		{Rule: "b", Severity: "note", Message: "\xff\xfe héllo ✓ \U0001F600 \xe2\x80", File: "\xfe.conf", FileBase64: []byte("\xfe.conf"),
			Suppressed: &jsonSuppression{}, Line: -1, Column: 1 << 40},
	}
	// Every field set, found by reflection: a field added to the finding
	// (or to what it holds) that appendFinding does not write fails here.
	var full jsonFinding
	fillEvery(reflect.ValueOf(&full).Elem(), 1)
	sets["crafted"] = append(sets["crafted"], full)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(3) == 0 {
				b[i] = byte(rng.IntN(256))
			} else {
				b[i] = "ab<>&\"\\\n\u2028é"[rng.IntN(13)]
			}
		}
		sets["crafted"] = append(sets["crafted"], jsonFinding{Message: string(b), File: string(b[:len(b)/2]), Fix: string(b[len(b)/2:]),
			Related: []jsonRelated{{Message: string(b)}}})
	}
	for name, findings := range sets {
		if name != "crafted" && len(findings) < 20 {
			t.Fatalf("%s: only %d findings", name, len(findings))
		}
		var got []byte
		for i := range findings {
			got = appendFinding(got[:0], &findings[i], "    ")
			if want := marshalFinding(t, &findings[i]); string(got) != want {
				t.Fatalf("%s: finding %d appended as\n%s\nthe encoder writes\n%s", name, i, got, want)
			}
		}
		t.Logf("%s: %d findings", name, len(findings))
	}
}

// fillEvery gives every field of v, and of the structs, pointers and
// slices it holds, a value that is not its zero, so that no omitempty
// field is left out of the comparison.
func fillEvery(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + strconv.Itoa(n))
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte{0xff, byte(n)})
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillEvery(v.Index(i), n+i+1)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(v.Elem(), n+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillEvery(v.Field(i), n+i+1)
			}
		}
	default:
		panic("fillEvery: no value for a " + v.Kind().String())
	}
}

// Every byte and every sequence of up to two bytes is quoted as the
// encoder quotes it.
func TestAppendJSONStringAsMarshal(t *testing.T) {
	check := func(s string) {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got)+"\n" != want.String() {
			t.Fatalf("%q: %s, the encoder writes %s", s, got, want.String())
		}
	}
	for a := range 256 {
		check(string([]byte{byte(a)}))
		for b := range 256 {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
	for _, s := range []string{"", "plain", "\u2028\u2029", "\xe2\x80\xa8", "\xe2\x80", "日本語", "\U0010FFFF", "\xed\xa0\x80"} {
		check(s)
	}
}

// lineStarts finds the lines a byte-by-byte scan finds: a line starts
// after each newline that is not the source's last byte.
func TestLineStartsAsScanned(t *testing.T) {
	scan := func(src string) []int {
		starts := []int{0}
		for i := 0; i < len(src); i++ {
			if src[i] == '\n' && i+1 < len(src) {
				starts = append(starts, i+1)
			}
		}
		return starts
	}
	cases := []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\n\nb\n", "\r\n\r\n", string(bytes.Repeat([]byte("line\n"), 1000)) + "end"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = "ab\n"[rng.IntN(3)]
		}
		cases = append(cases, string(b))
	}
	for _, src := range cases {
		in := &Input{}
		if got, want := in.lineStarts("f", src), scan(src); !slicesEqual(got, want) {
			t.Fatalf("%q: %v, want %v", src, got, want)
		}
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
