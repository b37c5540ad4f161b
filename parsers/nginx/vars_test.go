package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Variables in a *_pass URL resolve through "set" and through a "map" with
// one static value, keeping the scheme, host, port and URI apart.
func TestPassVariablesResolve(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    resolver 127.0.0.11;
    map $http_x_tenant $tenant_backend { default app; ~^a app; b app; }
    map $http_x_tenant $split { default app; b other; }
    map $http_x_tenant $mapped_svc { default svc; }
    map $host $no_default { a.example.com app; }
    upstream app { server 10.0.0.1:8080; }
    server {
        location /whole/ { set $u http://svc:9000; proxy_pass $u; }
        location /whole-https/ { set $u https://api.example.com; proxy_pass $u; }
        location /host-port-uri/ { set $backend svc; proxy_pass http://$backend:8080$request_uri; }
        location /braced/ { set $backend svc; proxy_pass http://${backend}:8081/x/$uri; }
        location /map/ { proxy_pass http://$tenant_backend; }
        location /map-port/ { proxy_pass http://$tenant_backend:7000$request_uri; }
        location /map-port-other/ { proxy_pass http://$mapped_svc:7000$request_uri; }
        location /map-split/ { proxy_pass http://$split; }
        location /map-no-default/ { proxy_pass http://$no_default; }
        location /chained/ { set $a $b; set $b app; proxy_pass http://$a; }
        location /grpc/ { set $g grpc://svc:50051; grpc_pass $g; }
        location /conditional/ { set $c app; if ($arg_x) { set $c other; } proxy_pass http://$c:80; }
        # The rewrite directives of an enclosing location do not run for
        # a nested one: $outer is not set there.
        location /outer/ { set $outer svc:9000; location /outer/inner/ { proxy_pass http://$outer; } }
        # The server's run for every location.
        set $server_wide svc:9100;
        location /server-wide/ { proxy_pass http://$server_wide; }
    }
}
`)
	fwd := func(name string) (scheme, target string, upstream string) {
		f := route(t, p, name).Forward
		require.NotNil(t, f, name)
		if f.Upstream != nil {
			upstream = f.Upstream.Name
		}
		if f.Target.Host != "" {
			target = f.Target.String()
		}
		return f.Scheme, target, upstream
	}
	cases := []struct{ name, scheme, target, upstream string }{
		{"location /whole/", "http", "svc:9000", "svc:9000"},
		{"location /whole-https/", "https", "api.example.com", "api.example.com:443"},
		{"location /host-port-uri/", "http", "svc:8080", "svc:8080"},
		{"location /braced/", "http", "svc:8081", "svc:8081"},
		{"location /map/", "http", "app", "app"},
		// A port on an upstream's name: nginx looks for an upstream
		// with that port, finds none, and resolves the name at run time.
		{"location /map-port/", "http", "app:7000", ""},
		{"location /map-port-other/", "http", "svc:7000", "svc:7000"},
		{"location /map-split/", "http", "", ""},
		{"location /map-no-default/", "http", "", ""},
		{"location /chained/", "http", "", ""},
		{"location /grpc/", "grpc", "svc:50051", "svc:50051"},
		{"location /conditional/", "http", "", ""},
		{"location /outer/inner/", "http", "", ""},
		{"location /server-wide/", "http", "svc:9100", "svc:9100"},
	}
	for _, c := range cases {
		scheme, target, upstream := fwd(c.name)
		assert.Equal(t, []string{c.scheme, c.target, c.upstream}, []string{scheme, target, upstream}, c.name)
		assert.True(t, route(t, p, c.name).Forward.Variable, c.name)
	}
	assert.Len(t, p.Upstreams[0].Routes, 1, "the map with one value reaches upstream app")
}

// Without a resolver nginx cannot look up a host name computed at run
// time and opens no connection (rules/proof/resolver_test.go): such a
// pass has no upstream. An address, an upstream block's name or a
// resolver set at any level above keeps it.
func TestPassVariableHostWithoutResolver(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    upstream app { server 10.0.0.1:8080; }
    server {
        location /name/ { set $b svc:9000; proxy_pass http://$b; }
        location /localhost/ { set $b localhost:9000; proxy_pass http://$b; }
        location /address/ { set $b 10.0.0.2:9000; proxy_pass http://$b; }
        location /upstream/ { set $b app; proxy_pass http://$b; }
        location /literal/ { proxy_pass http://svc:9001; }
    }
    server {
        resolver 127.0.0.11;
        location /resolved/ { set $b svc:9002; proxy_pass http://$b; }
    }
}
`)
	for name, want := range map[string]string{
		"location /name/": "", "location /localhost/": "", "location /address/": "10.0.0.2:9000",
		"location /upstream/": "app", "location /literal/": "svc:9001", "location /resolved/": "svc:9002",
	} {
		f := route(t, p, name).Forward
		require.NotNil(t, f, name)
		got := ""
		if f.Upstream != nil {
			got = f.Upstream.Name
		}
		assert.Equal(t, want, got, name)
	}
}
