package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// A large configuration's servers are built side by side; the proxy must
// be the one building them in order gives: the same listeners and routes
// in the same order, one implicit upstream per address however many
// servers name it (made at its first proxy_pass), every route pointing at
// it, and each upstream's routes in order.
func TestServersBuiltSideBySideAsInOrder(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n    upstream named { server 127.0.0.1:9000; server 127.0.0.2:9000; keepalive 8; }\n    proxy_read_timeout 20s;\n")
	for i := range 300 {
		fmt.Fprintf(&b, `    server {
        listen %d;
        access_log /var/log/s%d.log;
        location / { proxy_pass http://127.0.0.1:%d; }
        location /shared { proxy_pass http://10.0.0.%d:8080; proxy_next_upstream error timeout http_502; }
        location /named {
            proxy_pass http://named;
            if ($request_method = POST) { return 405; }
            location /named/inner { proxy_read_timeout 5s; }
        }
        location /ws { proxy_pass http://named; if ($arg_x) { set $y 1; } }
    }
`, 8000+i, i, 9000+i%7, i%5)
	}
	b.WriteString("}\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(b.String()), 0o644))

	build := func(procs int) *model.Proxy {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		require.Empty(t, cfg.Diagnostics)
		return BuildReleasing(cfg, model.Target{Product: model.Nginx})
	}
	inOrder, sideBySide := build(1), build(4)
	want := proxyShape(inOrder)
	assert.Equal(t, want, proxyShape(sideBySide))
	// The configuration has what the test is about.
	assert.Len(t, inOrder.Listeners, 300)
	assert.Len(t, inOrder.Upstreams, 1+7+5, "named, then one per address")
}

// proxyShape writes what a proxy holds, with upstreams named by their
// place in Proxy.Upstreams, so that two proxies compare by value and by
// which route shares which upstream.
func proxyShape(p *model.Proxy) string {
	index := map[*model.Upstream]int{}
	var b strings.Builder
	for i, u := range p.Upstreams {
		index[u] = i
		fmt.Fprintf(&b, "upstream %d %s implicit=%v at %s pool=%d\n", i, u.Name, u.Implicit, u.Pos, u.PoolSize.Value)
		for _, r := range u.Routes {
			fmt.Fprintf(&b, "  used by %s %s\n", r.Name, r.Pos)
		}
	}
	for _, l := range p.Listeners {
		fmt.Fprintf(&b, "listener %s at %s idle=%v\n", l.Name, l.Pos, l.IdleTimeout.Value)
		for _, r := range l.Routes {
			fmt.Fprintf(&b, "  route %s %s at %s methods=%v/%v attempt=%v (%s) budget=%v tries=%d reexec=%d logs=%d",
				r.Kind, r.Name, r.Pos, r.Methods.Any, r.Methods.Allowed, r.AttemptTimeout.Value, r.AttemptTimeout.Pos(),
				r.Budget.Value, r.MaxAttempts.Value, len(r.Reexecutes), len(r.AccessLogs.Value))
			if r.Parent != nil {
				fmt.Fprintf(&b, " in %s", r.Parent.Name)
			}
			if f := r.Forward; f != nil {
				fmt.Fprintf(&b, " forward %s %s inherited=%v", f.Module, f.URL, f.Inherited)
				if f.Upstream != nil {
					fmt.Fprintf(&b, " upstream %d", index[f.Upstream])
				}
			}
			if r.Pool != nil {
				fmt.Fprintf(&b, " pool of %d", index[r.Pool.Upstream])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
