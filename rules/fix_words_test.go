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

// TestWordCacheFollowsTheSources checks that answers kept for a model are
// not given for another model, nor for the same model once its files or
// sources changed.
func TestWordCacheFollowsTheSources(t *testing.T) {
	var c wordCache
	m := &model.Model{Files: []*model.File{{Path: "a.conf", Source: []byte("proxy_pass http://b;")}}}
	if c.holds(m, "timing") {
		t.Fatal("timing found in a file without it")
	}
	m.Files[0].Source = []byte("log_format t timing;")
	if !c.holds(m, "timing") {
		t.Fatal("a changed source was not read again")
	}
	m.Files = append(m.Files, &model.File{Path: "b.conf", Source: []byte("proxy_redirect off;")})
	if !c.holds(m, "proxy_redirect") {
		t.Fatal("an added file was not read")
	}
	other := &model.Model{Files: []*model.File{{Path: "a.conf", Source: []byte("x;")}}}
	if c.holds(other, "timing") || c.holds(other, "proxy_redirect") {
		t.Fatal("answers about one model given for another")
	}
	if c.holds(nil, "x") {
		t.Fatal("a nil model holds nothing")
	}
}
