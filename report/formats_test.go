package report

import (
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

func TestNumericVersion(t *testing.T) {
	for v, want := range map[string]string{
		"0.2.0": "0.2.0", "v0.2.0": "0.2.0", "0.2.1-0.20261201120000-962ec51abcde+dirty": "0.2.1",
		"(devel)": "0.0.0", "962ec51abcde+dirty": "0.0.0", "": "0.0.0",
	} {
		if got := numericVersion(v); got != want {
			t.Errorf("numericVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestRootPath(t *testing.T) {
	in := &Input{Dir: "/repo/deploy", Root: "/repo"}
	for p, want := range map[string]string{
		"nginx/nginx.conf":      "deploy/nginx/nginx.conf",
		"/repo/deploy/a.conf":   "deploy/a.conf",
		"../b.conf":             "b.conf",
		"/etc/nginx/nginx.conf": "/etc/nginx/nginx.conf",
		"":                      "",
	} {
		if got := in.rootPath(p); got != want {
			t.Errorf("rootPath(%q) = %q, want %q", p, got, want)
		}
	}
	if got := in.rootPosText(model.Pos{File: "x.conf", Line: 3, Col: 2}); got != "deploy/x.conf:3:2" {
		t.Errorf("rootPosText = %q", got)
	}
	if got := in.srcRootURI(); got != "file:///repo/" {
		t.Errorf("srcRootURI = %q", got)
	}
}

func TestLintFormatsRegistry(t *testing.T) {
	if got := strings.Join(LintFormats.Names(), " "); got != "text json sarif github checkstyle junit gitlab" {
		t.Errorf("names %v", got)
	}
	if f, ok := LintFormats.Lookup("text"); !ok || !f.Color {
		t.Error("text takes colour")
	}
	if f, ok := LintFormats.Lookup("sarif"); !ok || f.Color {
		t.Error("sarif takes no colour")
	}
	if _, ok := LintFormats.Lookup("xml"); ok {
		t.Error("xml is no format")
	}
}
