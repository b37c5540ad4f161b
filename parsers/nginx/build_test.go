package nginx

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// build loads src as nginx.conf (plus extra files) and builds the model.
func build(t *testing.T, target string, src string, extra ...string) *model.Proxy {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(src), 0o644))
	for i := 0; i+1 < len(extra); i += 2 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, extra[i]), []byte(extra[i+1]), 0o644))
	}
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	for _, d := range cfg.Diagnostics {
		require.Falsef(t, d.Fatal, "%s", d.Error())
	}
	tg, err := model.ParseTarget(target)
	require.NoError(t, err)
	return Build(cfg, tg)
}

// route finds the route named name ("location /api/").
func route(t *testing.T, p *model.Proxy, name string) *model.Route {
	t.Helper()
	for _, r := range p.Routes() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no route %q", name)
	return nil
}

func TestScalarsAreInheritedWholeAndReplacedWhole(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    proxy_read_timeout 30s;
    proxy_next_upstream error timeout http_502;
    server {
        proxy_read_timeout 20s;
        location /a/ {
            proxy_pass http://127.0.0.1:1;
        }
        location /b/ {
            proxy_pass http://127.0.0.1:1;
            proxy_next_upstream http_503;
            location /b/nested/ {
                proxy_pass http://127.0.0.1:1;
            }
        }
    }
    server {
        location / {
            proxy_pass http://127.0.0.1:1;
        }
    }
}
`)
	a := route(t, p, "location /a/")
	assert.Equal(t, 20*time.Second, a.AttemptTimeout.Value)
	assert.Equal(t, "server", a.AttemptTimeout.Level())
	assert.Equal(t, 6, int(a.AttemptTimeout.Pos().Line))
	assert.Equal(t, []string{"error", "timeout", "http_502"}, a.Retry.On.Value)
	assert.Equal(t, "http", a.Retry.On.Level())

	b := route(t, p, "location /b/")
	assert.Equal(t, []string{"http_503"}, b.Retry.On.Value, "a location's value replaces the inherited flags whole")
	nested := route(t, p, "location /b/nested/")
	assert.Equal(t, []string{"http_503"}, nested.Retry.On.Value)
	assert.Equal(t, b, nested.Parent)

	other := route(t, p, "location /")
	assert.Equal(t, 30*time.Second, other.AttemptTimeout.Value)
	assert.Equal(t, 60*time.Second, other.ConnectTimeout.Value)
	assert.True(t, other.ConnectTimeout.Default())
	assert.Equal(t, "proxy_connect_timeout", other.ConnectTimeout.Name())
	assert.Equal(t, other.Pos, other.ConnectTimeout.Pos(), "a default points at the block that inherits it")
}

func TestNextUpstreamOffWins(t *testing.T) {
	p := build(t, "nginx", `events {}
http { server { location / { proxy_pass http://127.0.0.1:1; proxy_next_upstream error timeout off; } } }
`)
	r := route(t, p, "location /")
	assert.Empty(t, r.Retry.On.Value)
	assert.True(t, r.Retry.On.Explicit())
}

func TestModuleSettingsFollowThePassModule(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    proxy_read_timeout 5s;
    fastcgi_read_timeout 300s;
    grpc_next_upstream_tries 2;
    server {
        location ~ \.php$ { fastcgi_pass 127.0.0.1:9000; }
        location /rpc/ { grpc_pass grpc://127.0.0.1:50051; }
    }
}
`)
	php := route(t, p, `location ~ \.php$`)
	assert.Equal(t, "fastcgi", php.Forward.Module)
	assert.Equal(t, 300*time.Second, php.AttemptTimeout.Value)
	assert.Equal(t, "fastcgi_read_timeout", php.AttemptTimeout.Name())
	assert.False(t, php.Nginx.KeepConn.Value)
	assert.True(t, php.Nginx.KeepConn.Default())

	rpc := route(t, p, "location /rpc/")
	assert.Equal(t, 2, rpc.Nginx.Tries.Value)
	assert.False(t, rpc.IgnoreClientAbort.Valid(), "grpc has no *_ignore_client_abort")
}

func TestProxySetHeaderIsInheritedOnlyByLevelsWithoutIt(t *testing.T) {
	src := `events {}
http {
    proxy_set_header Connection "";
    upstream app { server 10.0.0.1:80; keepalive 8; }
    server {
        location /inherits/ { proxy_pass http://app; }
        location /own/ { proxy_pass http://app; proxy_set_header Host $host; }
    }
}
`
	for _, tc := range []struct {
		target, ownValue string
		ownDefault       bool
	}{
		{"nginx:1.28", "close", true},
		{"nginx:newest", "", true},
		// Every release still shipped: the old default holds on some.
		{"nginx", "close", true},
		{"angie:1.11", "close", true},
		{"angie:1.12", "", true},
		{"angie", "close", true},
	} {
		p := build(t, tc.target, src)
		inh := route(t, p, "location /inherits/")
		assert.Equal(t, "", inh.Nginx.ConnectionHeader.Value, tc.target)
		assert.Equal(t, "http", inh.Nginx.ConnectionHeader.Level(), tc.target)
		own := route(t, p, "location /own/")
		assert.Equal(t, tc.ownValue, own.Nginx.ConnectionHeader.Value, tc.target)
		assert.Equal(t, tc.ownDefault, own.Nginx.ConnectionHeader.Default(), tc.target)
	}
}

func TestTargetDefaults(t *testing.T) {
	src := `events {}
http {
    upstream app { server 10.0.0.1:80; }
    server { location / { proxy_pass http://app; } }
}
`
	cases := []struct {
		target    string
		keepalive int
		version   string
	}{
		{"nginx:newest", 32, "1.1"},
		// Every release still shipped, 1.18 and newer: the defaults of
		// the oldest are what holds on all of them.
		{"nginx", 0, "1.0"},
		{"nginx:1.30", 32, "1.1"},
		{"nginx:1.29.7", 32, "1.1"},
		{"nginx:1.29.6", 0, "1.0"},
		{"nginx:1.28", 0, "1.0"},
		{"angie:1.12", 0, "1.1"},
		{"angie", 0, "1.0"},
		{"angie:1.11", 0, "1.0"},
	}
	for _, c := range cases {
		p := build(t, c.target, src)
		var u *model.Upstream
		for _, x := range p.Upstreams {
			if x.Name == "app" {
				u = x
			}
		}
		require.NotNil(t, u)
		assert.Equal(t, c.keepalive, u.PoolSize.Value, c.target)
		assert.True(t, u.PoolSize.Default(), c.target)
		assert.Equal(t, c.version, route(t, p, "location /").Nginx.HTTPVersion.Value, c.target)
	}
}

func TestUpstreamResolution(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        location /upper/ { proxy_pass http://BACKEND/x/; }
        location /implicit/ { proxy_pass http://127.0.0.1:8000; }
        location /implicit2/ { proxy_pass http://127.0.0.1:8000/other/; }
        location /host/ { proxy_pass https://api.example.com; }
        location /socket/ { proxy_pass http://unix:/run/app.sock:/; }
        location /set/ { set $b backend; proxy_pass http://$b; }
        location /set-port/ { set $b 127.0.0.1:9000; proxy_pass http://$b; }
        location /dynamic/ { proxy_pass http://$host; }
        location /uri-var/ { proxy_pass http://backend$request_uri; }
        location /fcgi/ { fastcgi_pass backend; }
    }
    upstream backend { server 10.0.0.1:80; server 10.0.0.2:80 backup; server 10.0.0.3:80 down; }
}
`)
	named := func(name string) *model.Upstream { return route(t, p, name).Forward.Upstream }
	assert.Equal(t, "backend", named("location /upper/").Name, "names match case-insensitively, before or after the upstream block")
	assert.Equal(t, 3, len(named("location /upper/").Servers))
	peers, exact := named("location /upper/").Peers()
	assert.Equal(t, 2, peers)
	assert.True(t, exact)
	assert.True(t, named("location /implicit/").Implicit)
	assert.Same(t, named("location /implicit/"), named("location /implicit2/"), "one implicit upstream per address")
	assert.Equal(t, "api.example.com:443", named("location /host/").Name)
	assert.False(t, named("location /host/").Servers[0].Literal)
	assert.Equal(t, "/run/app.sock", named("location /socket/").Servers[0].Address.Unix)
	assert.Equal(t, "backend", named("location /set/").Name)
	assert.True(t, named("location /set-port/").Implicit)
	assert.Nil(t, named("location /dynamic/"))
	assert.True(t, route(t, p, "location /dynamic/").Forward.Variable)
	assert.Equal(t, "backend", named("location /uri-var/").Name)
	assert.Equal(t, "backend", named("location /fcgi/").Name)
	assert.Len(t, named("location /upper/").Routes, 4)
}

func TestIfBlocksAndLimitExcept(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        location /a/ {
            proxy_pass http://127.0.0.1:1;
            if ($arg_v2) { proxy_pass http://127.0.0.1:2; }
            if ($arg_x) { return 403; }
            limit_except GET { deny all; }
        }
        location /b/ {
            proxy_pass http://127.0.0.1:1;
            limit_except GET POST { allow 10.0.0.0/8; deny all; }
        }
        location /c/ {
            proxy_pass http://127.0.0.1:1;
            limit_except PUT { deny all; }
        }
    }
}
`)
	a := route(t, p, "location /a/")
	assert.Equal(t, []string{"GET", "HEAD"}, a.Methods.Allowed, "GET implies HEAD")
	assert.Equal(t, "limit_except", a.Methods.Source())
	v2 := route(t, p, "if ($arg_v2)")
	assert.Equal(t, a, v2.Parent)
	assert.Equal(t, "127.0.0.1:2", v2.Forward.Upstream.Name)
	assert.Equal(t, []string{"GET", "HEAD"}, v2.Methods.Allowed, "an if block inherits its location's limit_except")
	for _, r := range p.Routes() {
		assert.NotEqual(t, "if ($arg_x)", r.Name, "an if without its own pass is not a route")
	}
	assert.True(t, route(t, p, "location /b/").Methods.Any, "allow lets some clients use every method")
	assert.Equal(t, []string{"PUT"}, route(t, p, "location /c/").Methods.Allowed)
}

func TestAnnotations(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        # proxylint:write
        location /a/ {
            proxy_pass http://127.0.0.1:1;
        }
        location /b/ {
            # proxylint:write -- charges cards
            proxy_pass http://127.0.0.1:1;
            location /b/read/ {
                proxy_pass http://127.0.0.1:1;
            }
        }
        location /c/ { proxy_pass http://127.0.0.1:1; } # proxylint:write
        location /d/ {
            # proxylint:ignore retry-timeout-write -- not an annotation
            proxy_pass http://127.0.0.1:1;
        }
    }
}
`)
	names := func(r *model.Route) []string {
		var out []string
		for _, a := range r.Annotations {
			out = append(out, a.Name)
		}
		return out
	}
	assert.Equal(t, []string{"write"}, names(route(t, p, "location /a/")))
	assert.Equal(t, []string{"write"}, names(route(t, p, "location /b/")))
	assert.Empty(t, names(route(t, p, "location /b/read/")))
	assert.Equal(t, []string{"write"}, names(route(t, p, "location /c/")))
	assert.Empty(t, names(route(t, p, "location /d/")))
}

func TestAccessLogs(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    log_format timing escape=json '{"rt":$request_time,'
                                  '"us":"$upstream_status"}';
    server {
        location /default/ { proxy_pass http://127.0.0.1:1; }
    }
    server {
        access_log /var/log/a.log timing buffer=32k;
        access_log syslog:server=10.0.0.1;
        location /two/ { proxy_pass http://127.0.0.1:1; }
        location /off/ { proxy_pass http://127.0.0.1:1; access_log off; }
    }
}
`)
	d := route(t, p, "location /default/").AccessLogs
	assert.True(t, d.Default())
	assert.Equal(t, 2, int(d.Pos().Line), "nginx's default log applies to the whole http block")
	require.Len(t, d.Value, 1)
	assert.True(t, d.Value[0].Format.Builtin)

	two := route(t, p, "location /two/").AccessLogs.Value
	require.Len(t, two, 2)
	assert.Equal(t, "timing", two[0].Format.Name)
	assert.Equal(t, `{"rt":$request_time,"us":"$upstream_status"}`, two[0].Format.Text)
	assert.Equal(t, "combined", two[1].Format.Name)
	assert.True(t, route(t, p, "location /off/").AccessLogs.Value[0].Off)
}

func TestWebsocketMap(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    map $http_upgrade $closing { default upgrade; '' close; }
    map $http_upgrade $keeping { default upgrade; '' ''; }
    map $http_upgrade $defaulted { default close; websocket upgrade; }
    map $host $other { default close; }
    server {
        location /a/ { proxy_pass http://127.0.0.1:1; proxy_set_header Connection $closing; }
        location /b/ { proxy_pass http://127.0.0.1:1; proxy_set_header Connection $keeping; }
        location /c/ { proxy_pass http://127.0.0.1:1; proxy_set_header Connection $defaulted; }
        location /d/ { proxy_pass http://127.0.0.1:1; proxy_set_header Connection $other; }
    }
}
`)
	a := route(t, p, "location /a/").Nginx.ConnectionHeaderPlain
	assert.Equal(t, "close", a.Value)
	assert.Equal(t, 3, int(a.Pos().Line))
	assert.Equal(t, "", route(t, p, "location /b/").Nginx.ConnectionHeaderPlain.Value)
	assert.True(t, route(t, p, "location /b/").Nginx.ConnectionHeaderPlain.Valid())
	assert.Equal(t, "close", route(t, p, "location /c/").Nginx.ConnectionHeaderPlain.Value)
	assert.False(t, route(t, p, "location /d/").Nginx.ConnectionHeaderPlain.Valid(), "only maps on $http_upgrade are followed")
}

func TestFragmentContexts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	cases := []struct {
		name, src, ctx string
		routes         int
	}{
		{"server.conf", "server { listen 80; location / { proxy_pass http://127.0.0.1:1; } }\n", "http", 1},
		{"locations.conf", "location /a/ { proxy_pass http://127.0.0.1:1; }\nlocation /b/ { return 204; }\n", "server", 2},
		{"proxy.conf", "proxy_pass http://127.0.0.1:1;\nproxy_read_timeout 5s;\n", "location", 1},
		{"servers.conf", "server 10.0.0.1:80;\nserver 10.0.0.2:80 backup;\n", "upstream", 0},
		{"params.conf", "proxy_set_header Host $host;\n", "http", 0},
	}
	for _, c := range cases {
		cfg := Load(write(c.name, c.src), Options{})
		assert.Equal(t, c.ctx, cfg.Context, c.name)
		p := Build(cfg, model.Target{Product: model.Nginx})
		assert.Len(t, p.Routes(), c.routes, c.name)
		assert.Equal(t, c.ctx, p.Context, c.name)
	}
}

func TestDirectiveListIsSorted(t *testing.T) {
	for i := 1; i < len(knownDirectiveList); i++ {
		// A name declared by several modules has one entry each, side by side.
		require.LessOrEqual(t, knownDirectiveList[i-1].name, knownDirectiveList[i].name)
	}
	spec, ok := lookupDirective("proxy_pass")
	require.True(t, ok)
	assert.Equal(t, context(0), spec.blockIn)
	_, ok = lookupDirective("proxy_passs")
	assert.False(t, ok)
}

// A server is named by all its server_name directives, in order; one
// without any is plain "server".
func TestServerNamedByItsServerNames(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server { listen 80; server_name a.example.com "*.b.example.com"; server_name c.example.com; }
    server { listen 81; }
}
`)
	require.Len(t, p.Listeners, 2)
	assert.Equal(t, `server a.example.com *.b.example.com c.example.com`, p.Listeners[0].Name)
	assert.Equal(t, "server", p.Listeners[1].Name)
}
