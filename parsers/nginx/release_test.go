package nginx

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
)

// BuildReleasing builds the model Build builds, and lets go of the
// directives of the files the http block includes.
func TestBuildReleasingBuildsTheSameModel(t *testing.T) {
	dir := t.TempDir()
	main, err := gen.NginxTree{Servers: 60}.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Prefix: dir, Roots: []string{dir}}
	target := model.DefaultTarget(model.Nginx)
	kept, released := Load(main, opts), Load(main, opts)
	for _, cfg := range []*Config{kept, released} {
		if len(cfg.Diagnostics) > 0 {
			t.Fatalf("diagnostics: %v", cfg.Diagnostics)
		}
	}
	want, got := Build(kept, target), BuildReleasing(released, target)
	if len(want.Routes()) < 100 {
		t.Fatalf("only %d routes: the tree is not the one meant", len(want.Routes()))
	}
	for _, p := range []*model.Proxy{want, got} {
		for _, l := range p.Listeners {
			if l.Select == nil {
				t.Fatal("a listener without its location search")
			}
			l.Select = nil // functions never compare equal
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("BuildReleasing built another model than Build")
	}
	sites := 0
	for _, f := range released.Files {
		if strings.Contains(filepath.ToSlash(f.Path), "/sites/") {
			sites++
			if f.Directives != nil {
				t.Errorf("%s: directives kept", f.Path)
			}
			if len(f.Source) == 0 {
				t.Errorf("%s: source dropped", f.Path)
			}
		}
	}
	if sites == 0 {
		t.Fatal("no file under sites/")
	}
	for _, f := range kept.Files {
		if strings.Contains(filepath.ToSlash(f.Path), "/sites/") && f.Directives == nil {
			t.Errorf("%s: Build dropped the directives", f.Path)
		}
	}
}
