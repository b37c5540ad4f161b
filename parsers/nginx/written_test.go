package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// The facts are the same whether the builder keeps the directives or lets
// them go server by server, and whether it builds the servers one after
// the other or side by side (enough servers to fork): an http-level
// directive from an include is judged against every server's routes.
func TestWrittenFactsSameWhenReleasing(t *testing.T) {
	dir := t.TempDir()
	var servers strings.Builder
	for i := range 3 * serversPerBuilder {
		fmt.Fprintf(&servers, `server {
    listen %d;
    proxy_set_header X-Server %d;
    location / {
        grpc_pass grpc://10.0.0.1:50051;
        proxy_connect_timeout 5s;
    }
    location /p/ {
        proxy_set_header X-Only 1;
        proxy_pass http://10.0.0.2;
    }
}
`, 8000+i, i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "servers.conf"), []byte(servers.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "timeouts.conf"), []byte("grpc_read_timeout 1d;\nfastcgi_read_timeout 1d;\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include timeouts.conf;\n    include servers.conf;\n}\n"), 0o644))
	kept := Build(Load(filepath.Join(dir, "nginx.conf"), Options{}), model.DefaultTarget(model.Nginx))
	released := BuildReleasing(Load(filepath.Join(dir, "nginx.conf"), Options{}), model.DefaultTarget(model.Nginx))

	summary := func(p *model.Proxy) []string {
		var out []string
		for _, g := range p.NoEffect {
			for _, d := range g.Directives {
				out = append(out, fmt.Sprintf("no-effect %s:%d %s via %d", filepath.Base(d.Pos().File), d.Pos().Line, d.Name(), d.Include.Line))
			}
		}
		for _, o := range p.Overrides {
			out = append(out, fmt.Sprintf("override %s:%d %s lost %d routes %d", filepath.Base(o.Pos.File), o.Pos.Line, o.Directive, len(o.Lost), len(o.Routes)))
		}
		return out
	}
	got := summary(released)
	assert.Equal(t, summary(kept), got)
	// fastcgi_read_timeout applies to every route and is read by none;
	// grpc_read_timeout is read by the grpc_pass locations; the
	// proxy_connect_timeout of each grpc_pass location by none; each
	// /p/ location drops its server's X-Server.
	assert.Contains(t, got, "no-effect timeouts.conf:2 fastcgi_read_timeout via 3")
	assert.NotContains(t, strings.Join(got, "\n"), "grpc_read_timeout")
	assert.Equal(t, 3*serversPerBuilder+1, strings.Count(strings.Join(got, "\n"), "no-effect"))
	assert.Equal(t, 3*serversPerBuilder, strings.Count(strings.Join(got, "\n"), "override servers.conf"))
	assert.Contains(t, got, "override servers.conf:9 proxy_set_header lost 1 routes 1")
}

// What an upstream block says about looking its names up while nginx
// runs: the resolve parameter, the zone, and the resolver in effect (the
// block's own, nginx 1.27.3, else the http block's); an implicit upstream
// carries the resolver of the location that made it.
func TestUpstreamDNSFacts(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    resolver 10.0.0.53 valid=30s;
    upstream own {
        zone own 64k;
        resolver 10.0.0.54;
        server api.example.com:80 resolve;
        server db.example.com:80;
    }
    upstream bare {
        server app:8000;
    }
    server {
        listen 80;
        location / { proxy_pass http://own; }
        location /b/ { proxy_pass http://bare; }
        location /x/ { proxy_pass http://x.example.com; }
    }
}
`)
	ups := map[string]*model.Upstream{}
	for _, u := range p.Upstreams {
		ups[u.Name] = u
	}
	own := ups["own"]
	require.NotNil(t, own)
	assert.Equal(t, "own 64k", own.Zone.Value)
	assert.Equal(t, "10.0.0.54", own.Resolver.Value)
	assert.Equal(t, "upstream", own.Resolver.Level())
	assert.True(t, own.Servers[0].Resolve)
	assert.False(t, own.Servers[1].Resolve)
	bare := ups["bare"]
	assert.False(t, bare.Zone.Valid())
	assert.Equal(t, "10.0.0.53 valid=30s", bare.Resolver.Value)
	assert.Equal(t, "http", bare.Resolver.Level())
	x := ups["x.example.com:80"]
	require.NotNil(t, x)
	assert.Equal(t, "10.0.0.53 valid=30s", x.Resolver.Value)
}

// add_header_inherit (nginx 1.29.3) is merged as a scalar: merge at http
// level makes every level add the outer list to its own, so nothing is
// lost; off in a block keeps the outer list out on purpose.
func TestOverridesFollowAddHeaderInherit(t *testing.T) {
	p := build(t, "nginx:1.29.3", `events {}
http {
    add_header_inherit merge;
    add_header X-Frame-Options DENY;
    server {
        listen 80;
        add_header X-Server 1;
        location /merged/ {
            add_header X-Location 1;
            return 200;
        }
        location /on/ {
            add_header_inherit on;
            add_header X-Location 1;
            return 200;
        }
        location /off/ {
            add_header_inherit off;
            add_header X-Location 1;
            return 200;
        }
    }
}
`)
	require.Len(t, p.Overrides, 1)
	o := p.Overrides[0]
	assert.Equal(t, "location /on/", o.BlockName)
	// The server level merged the http level's into its own list.
	var lost []string
	for _, e := range o.Lost {
		lost = append(lost, e.Name)
	}
	assert.Equal(t, []string{"X-Server", "X-Frame-Options"}, lost)
}
