package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/proxylint/proxylint/internal/memtest"
	"github.com/proxylint/proxylint/model"
)

// TestModelHeldPerLocation holds what one proxying location costs once its
// configuration is built and its tree let go: the route, its nginx knobs,
// its pass and its settings, with the file's source and layout (111 bytes
// of source a location here), the largest part of a large configuration's
// heap while it is linted (one server of 430,000 such locations is bench's
// nginx-locations). It was 2,396 bytes with settings of 88 bytes and a
// whole Methods in each route; 1,208 with settings of 24.
func TestModelHeldPerLocation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 20,000 locations with the collector run between steps")
	}
	const n = 20000
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n    upstream app {\n        server 127.0.0.1:8000;\n        keepalive 16;\n    }\n    server {\n        listen 80;\n")
	for i := range n {
		fmt.Fprintf(&b, "        location /p%07d/ {\n            proxy_pass http://app;\n            proxy_read_timeout %ds;\n        }\n", i, 5+i%100)
	}
	b.WriteString("    }\n}\n")
	path := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := b.Len()
	b = strings.Builder{}
	base := memtest.LiveHeap()
	p := BuildReleasing(Load(path, Options{}), model.DefaultTarget(model.Nginx))
	held := memtest.LiveHeap() - base
	routes := len(p.Routes())
	if routes != n {
		t.Fatalf("%d routes, want %d", routes, n)
	}
	perRoute := float64(held) / float64(routes)
	t.Logf("%d locations (%d bytes of source): %d bytes held, %.0f a route", routes, src, held, perRoute)
	if perRoute > 1400 {
		t.Errorf("the model holds %.0f bytes a location, more than 1,400", perRoute)
	}
	runtime.KeepAlive(p)
}

// BuildReleasing lets each location of a server in the main file go once
// its routes are built, although the http block, and so the server,
// stay held by the file: one server of 430,000 locations is otherwise
// its whole tree beside its whole model. The parser allocates directives
// in batches, so that those sharing a batch with the server stay: all but
// a few of the locations must be let go.
func TestBuiltLocationsAreLetGo(t *testing.T) {
	const n = 2000
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n    server {\n        listen 80;\n        proxy_read_timeout 5s;\n")
	for i := range n {
		fmt.Fprintf(&b, "        location /p%d/ {\n            proxy_pass http://127.0.0.1:8000;\n            proxy_send_timeout %ds;\n        }\n", i, 1+i%50)
	}
	b.WriteString("    }\n}\n")
	path := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Load(path, Options{})
	if len(cfg.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", cfg.Diagnostics)
	}
	srv := cfg.Main.Directives[1].Block[0]
	var locs []weak.Pointer[Directive]
	for _, d := range srv.Block {
		if d.Name == "location" {
			locs = append(locs, weak.Make(d))
		}
	}
	if len(locs) != n {
		t.Fatalf("%d locations", len(locs))
	}
	srv = nil
	p := BuildReleasing(cfg, model.DefaultTarget(model.Nginx))
	if got := len(p.Routes()); got != n {
		t.Fatalf("%d routes", got)
	}
	runtime.GC()
	held := 0
	for _, l := range locs {
		if l.Value() != nil {
			held++
		}
	}
	t.Logf("%d of %d locations still held once built", held, n)
	if held > n/10 {
		t.Errorf("%d of %d locations still held once built", held, n)
	}
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(p)
}
