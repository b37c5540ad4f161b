package rules

import (
	"regexp"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// TestHoldsWordAsTheExpression checks the word search against the regular
// expression that states what a word is.
func TestHoldsWordAsTheExpression(t *testing.T) {
	srcs := []string{
		"", "timing", "timing;", " timing", "xtiming", "timingx", "a timing b",
		"log_format main '$request_time timing';", "{timing}", "a;timing\n",
		"timing\ttiming2", "timingtiming timing", "proxy_set_headers x;",
		"\fproxy_set_header\r", "# proxy_set_header\n", "é timing é", "\xfftiming\xff",
		"a;b", ";", "ab", "a b",
	}
	for _, w := range []string{"timing", "proxy_set_header", "$proxy_host", ""} {
		re := regexp.MustCompile(`(^|[\s;{}])` + regexp.QuoteMeta(w) + `($|[\s;{}])`)
		for _, s := range srcs {
			if got, want := holdsWord([]byte(s), w), re.MatchString(s); got != want {
				t.Errorf("holdsWord(%q, %q) = %v, want %v", s, w, got, want)
			}
		}
	}
}

// TestWordIndexAnswersOnce checks the index's answers, and that an answer
// is kept for the run: the files are read once per word.
func TestWordIndexAnswersOnce(t *testing.T) {
	files := []*model.File{{Path: "a.conf", Source: []byte("proxy_pass http://b;")}, {Path: "b.conf", Source: []byte("log_format t timing;")}}
	ix := newSourceIndex(files)
	if !ix.holds("timing") || ix.holds("proxy_redirect") || ix.holds("http:") {
		t.Fatalf("answers: timing %v, proxy_redirect %v, http: %v", ix.holds("timing"), ix.holds("proxy_redirect"), ix.holds("http:"))
	}
	files[1].Source = []byte("x;")
	if !ix.holds("timing") {
		t.Fatal("an answer was not kept for the run")
	}
	if newSourceIndex(files).holds("timing") {
		t.Fatal("a new run reads the sources again")
	}
}

// TestIndexFindsFiles: the index finds a file with a source by its path.
func TestIndexFindsFiles(t *testing.T) {
	for _, src := range []string{"", "a", "é ü;\n\nx { y; }\n"} {
		f := &model.File{Path: "a.conf", Source: []byte(src)}
		ix := newSourceIndex([]*model.File{f})
		if src != "" && ix.file("a.conf") != f {
			t.Errorf("%q: file not found by its path", src)
		}
		if ix.file("b.conf") != nil {
			t.Errorf("%q: a file found that is not there", src)
		}
	}
}
