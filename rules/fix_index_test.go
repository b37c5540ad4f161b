package rules

import (
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// TestIndexAsksEachFileOnce checks the index's answers, and that an answer
// is kept for the run: each file is asked once per question.
func TestIndexAsksEachFileOnce(t *testing.T) {
	conf := func(path, src string) *model.File {
		return &model.File{Path: path, Source: []byte(src), Editor: nginx.NewEditor(path, []byte(src))}
	}
	files := []*model.File{conf("a.conf", "proxy_pass http://b; # proxy_redirect\n"), conf("b.conf", "log_format t '$upstream_status $proxy_host_x';"), {Path: "c.yaml", Source: []byte("proxy_redirect: 1")}}
	ix := newSourceIndex(files)
	asked := 0
	redirect := func(ed model.ConfEditor) (bool, error) {
		asked++
		ds, err := ed.Find("proxy_redirect")
		return len(ds) > 0, err
	}
	if ix.anyConf("proxy_redirect", redirect) {
		t.Fatal("a comment or a YAML file counted as a proxy_redirect directive")
	}
	if ix.anyConf("proxy_redirect", redirect); asked != 2 {
		t.Fatalf("the nginx files were asked %d times, want 2 (once each)", asked)
	}
	uses := func(v string) bool {
		return ix.anyConf("$"+v, func(ed model.ConfEditor) (bool, error) { return ed.UsesVariable(v) })
	}
	if !uses("upstream_status") || uses("proxy_host") {
		t.Fatalf("variables: upstream_status %v, proxy_host %v", uses("upstream_status"), uses("proxy_host"))
	}
	broken := []*model.File{conf("d.conf", "server {")}
	if !newSourceIndex(broken).anyConf("proxy_redirect", redirect) {
		t.Fatal("a file the editor cannot read answered no")
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
