package nginx

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

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

// The routes of one upstream share its pool; another upstream's routes
// have their own.
func TestRoutesOfAnUpstreamShareItsPool(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    upstream a { server 127.0.0.1:1; keepalive 8; }
    upstream b { server 127.0.0.1:2; keepalive 4; }
    server {
        location /a1 { proxy_pass http://a; }
        location /a2 { proxy_pass http://a; }
        location /b { proxy_pass http://b; }
    }
}
`)
	rs := p.Routes()
	if len(rs) != 3 {
		t.Fatalf("%d routes, want 3", len(rs))
	}
	for _, r := range rs {
		if r.Pool == nil || r.Pool.Upstream != r.Forward.Upstream {
			t.Fatalf("%s: pool %+v", r.Name, r.Pool)
		}
	}
	if rs[0].Pool != rs[1].Pool {
		t.Error("two routes of upstream a have two pools")
	}
	if rs[1].Pool == rs[2].Pool {
		t.Error("upstreams a and b share a pool")
	}
	if rs[0].Pool.Size.Value != 8 || rs[2].Pool.Size.Value != 4 {
		t.Errorf("pool sizes %d and %d, want 8 and 4", rs[0].Pool.Size.Value, rs[2].Pool.Size.Value)
	}
}

// next hands out distinct zero values in batches that grow to at most
// 32 KB.
func TestNextBatches(t *testing.T) {
	var batch []model.Route
	seen := map[*model.Route]bool{}
	for i := range 100 {
		r := next(&batch)
		if seen[r] {
			t.Fatalf("value %d handed out twice", i)
		}
		seen[r] = true
		if r.Name != "" || r.Nginx != nil {
			t.Fatalf("value %d is not zero", i)
		}
		r.Name = "used"
		if size := cap(batch) * int(unsafe.Sizeof(model.Route{})); size > 32<<10 {
			t.Fatalf("a batch of %d bytes", size)
		}
	}
	if cap(batch) < 16 {
		t.Errorf("batches stop growing at %d routes", cap(batch))
	}
}

// The model's newest nginx release, which bounds the releases a target may
// name, is the one the directive tables were made from.
func TestNewestNginxIsTheTables(t *testing.T) {
	v := model.NewestNginx
	if got := releaseOf(v.Major, v.Minor, v.Patch); got != newestRelease {
		t.Errorf("model.NewestNginx is %v (%d), the tables' newest release %d", v, got, newestRelease)
	}
}
