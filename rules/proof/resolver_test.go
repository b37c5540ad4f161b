package proof

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestVariableHostWithoutResolverConnectsNowhere: a proxy_pass whose host
// name comes from a variable is looked up at run time through the
// resolver directive; without one nginx answers 502 and logs "no resolver
// defined to resolve", and the backend sees no connection, even for
// localhost. The nginx loader models no upstream for such a proxy_pass
// (parsers/nginx/build.go, unresolvable), so no pooling or retry finding
// is made about connections that never happen. An address in the variable
// needs no resolver.
func TestVariableHostWithoutResolverConnectsNowhere(t *testing.T) {
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    location /name/ {
        set $backend localhost:%d;
        proxy_pass http://$backend;
    }
    location /address/ {
        set $backend %s;
        proxy_pass http://$backend;
    }
}
`, addr, port(be.Addr), be.Addr), addr)

	if r := send(t, http.MethodGet, srv.URL()+"/name/x", "by-name"); r.Status != http.StatusBadGateway {
		t.Errorf("host name without a resolver: status %d, want 502", r.Status)
	}
	if !strings.Contains(srv.ErrorLog(), `no resolver defined to resolve localhost`) {
		t.Errorf("error log lacks \"no resolver defined to resolve localhost\":\n%s", srv.ErrorLog())
	}
	if n := be.Hits("by-name"); n != 0 {
		t.Errorf("backend saw the request %d times, want 0", n)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/address/x", "by-address"); r.Status != http.StatusOK {
		t.Errorf("address in the variable: status %d, want 200", r.Status)
	}
}

// TestOtherPassModulesWithoutResolverConnectNowhere: grpc_pass,
// fastcgi_pass, uwsgi_pass and scgi_pass go through the same run-time
// lookup as proxy_pass (ngx_http_upstream.c,
// ngx_http_upstream_init_request), so a host name from a variable without
// a resolver gets 502 before any connection too.
func TestOtherPassModulesWithoutResolverConnectNowhere(t *testing.T) {
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    location /grpc/ {
        set $grpc_backend localhost:%[2]d;
        grpc_pass grpc://$grpc_backend;
    }
    location /fastcgi/ {
        set $fastcgi_backend localhost:%[2]d;
        fastcgi_pass $fastcgi_backend;
    }
    location /uwsgi/ {
        set $uwsgi_backend localhost:%[2]d;
        uwsgi_pass $uwsgi_backend;
    }
    location /scgi/ {
        set $scgi_backend localhost:%[2]d;
        scgi_pass $scgi_backend;
    }
}
`, addr, port(be.Addr)), addr)

	for _, m := range []string{"grpc", "fastcgi", "uwsgi", "scgi"} {
		tag := m + "-by-name"
		if r := send(t, http.MethodPost, srv.URL()+"/"+m+"/x", tag); r.Status != http.StatusBadGateway {
			t.Errorf("%s_pass host name without a resolver: status %d, want 502", m, r.Status)
		}
		if n := be.Hits(tag); n != 0 {
			t.Errorf("%s_pass: backend saw the request %d times, want 0", m, n)
		}
	}
	if n := strings.Count(srv.ErrorLog(), `no resolver defined to resolve localhost`); n != 4 {
		t.Errorf("error log has \"no resolver defined to resolve localhost\" %d times, want 4:\n%s", n, srv.ErrorLog())
	}
}

// TestComputedHostMatchesUpstreamsFirst: before it looks a computed host
// up, nginx looks for an upstream it has of that host and port: the
// implicit upstream of a literal proxy_pass elsewhere in the configuration
// serves a value with its host and port without a resolver; an upstream
// block matches only a value without a port, and the block's name with a
// port is looked up, and fails.
func TestComputedHostMatchesUpstreamsFirst(t *testing.T) {
	be := newBackend(t)
	addr := freeAddr(t)
	p := port(be.Addr)
	srv := startNginx(t, fmt.Sprintf(`
upstream app { server %[2]s; }
server {
    listen %[1]s;
    location /literal/ {
        proxy_pass http://localhost:%[3]d;
    }
    location /same-as-literal/ {
        set $backend localhost:%[3]d;
        proxy_pass http://$backend;
    }
    location /block/ {
        set $block app;
        proxy_pass http://$block;
    }
    location /block-with-port/ {
        set $block_port app:%[3]d;
        proxy_pass http://$block_port;
    }
}
`, addr, be.Addr, p), addr)

	if r := send(t, http.MethodGet, srv.URL()+"/same-as-literal/x", "same-as-literal"); r.Status != http.StatusOK {
		t.Errorf("value matching a literal proxy_pass: status %d, want 200", r.Status)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/block/x", "block"); r.Status != http.StatusOK {
		t.Errorf("upstream block's name: status %d, want 200", r.Status)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/block-with-port/x", "block-with-port"); r.Status != http.StatusBadGateway {
		t.Errorf("upstream block's name with a port: status %d, want 502", r.Status)
	}
	if !strings.Contains(srv.ErrorLog(), `no resolver defined to resolve app`) {
		t.Errorf("error log lacks \"no resolver defined to resolve app\":\n%s", srv.ErrorLog())
	}
	if n := be.Hits("block-with-port"); n != 0 {
		t.Errorf("backend saw the request with the block's name and a port %d times, want 0", n)
	}
}

// TestRewriteDirectivesOnRedirects: which "set" a request has run when it
// gets to a location, which decides whether a computed host is known for
// every request (parsers/nginx/lookup.go, certain). The rewrite directives
// of an enclosing location do not run for a nested one; a value set in
// one location survives "rewrite ... last" and a jump to a named location,
// neither of which runs the server's rewrite directives again; an internal
// redirect to a URI (try_files to a URI) runs them again. And the modules
// other than proxy answer a computed address without a port with 500
// before any lookup.
func TestRewriteDirectivesOnRedirects(t *testing.T) {
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    set $v server;
    location /outer/ {
        set $v outer;
        location /outer/inner/ { return 200 "[$v]"; }
    }
    location /last/ { set $v last; rewrite ^ /show/ last; }
    location /uri/ { set $v uri; try_files /nonexistent /show/; }
    location /named/ { set $v named; try_files /nonexistent @show; }
    location @show { return 200 "[$v]"; }
    location /show/ { return 200 "[$v]"; }
    location /fastcgi-no-port/ {
        set $no_port localhost;
        fastcgi_pass $no_port;
    }
}
`, addr), addr)

	for _, c := range []struct{ path, want string }{
		{"/outer/inner/x", "[server]"},
		{"/last/x", "[last]"},
		{"/uri/x", "[server]"},
		{"/named/x", "[named]"},
	} {
		if r := send(t, http.MethodGet, srv.URL()+c.path, ""); r.Status != http.StatusOK || r.Body != c.want {
			t.Errorf("%s: %d %q, want 200 %q", c.path, r.Status, r.Body, c.want)
		}
	}
	if r := send(t, http.MethodGet, srv.URL()+"/fastcgi-no-port/x", "fastcgi-no-port"); r.Status != http.StatusInternalServerError {
		t.Errorf("fastcgi_pass to a computed address without a port: status %d, want 500", r.Status)
	}
	if !strings.Contains(srv.ErrorLog(), `no port in upstream "localhost"`) {
		t.Errorf("error log lacks \"no port in upstream\":\n%s", srv.ErrorLog())
	}
}

// TestLiteralHostWithVariablesIsLookedUpPerRequest: a proxy_pass whose URL
// has a variable anywhere, in its URI only ("http://storage:9000/$1"),
// makes no upstream when nginx reads it (ngx_http_proxy_pass keeps the
// URL as a script), so its literal host name is looked up when a request
// comes, as a computed one is: without a resolver nginx answers 502 ("no
// resolver defined to resolve") and connects nowhere, unless an upstream
// of that host and port exists (here the implicit upstream of a literal
// proxy_pass elsewhere) or the host is an address.
func TestLiteralHostWithVariablesIsLookedUpPerRequest(t *testing.T) {
	unmatched, matched := newBackend(t), newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    location ~ ^/name/(.*)$ {
        proxy_pass http://localhost:%[2]d/$1;
    }
    location ~ ^/address/(.*)$ {
        proxy_pass http://%[3]s/$1;
    }
    location /literal/ {
        proxy_pass http://localhost:%[4]d;
    }
    location ~ ^/matched/(.*)$ {
        proxy_pass http://localhost:%[4]d/$1;
    }
}
`, addr, port(unmatched.Addr), unmatched.Addr, port(matched.Addr)), addr)

	if r := send(t, http.MethodGet, srv.URL()+"/name/x", "by-name"); r.Status != http.StatusBadGateway {
		t.Errorf("literal host name with a variable URI, no resolver: status %d, want 502", r.Status)
	}
	if !strings.Contains(srv.ErrorLog(), `no resolver defined to resolve localhost`) {
		t.Errorf("error log lacks \"no resolver defined to resolve localhost\":\n%s", srv.ErrorLog())
	}
	if n := unmatched.Hits("by-name"); n != 0 {
		t.Errorf("backend saw the request %d times, want 0", n)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/address/x", "by-address"); r.Status != http.StatusOK {
		t.Errorf("address with a variable URI: status %d, want 200", r.Status)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/matched/x", "matched"); r.Status != http.StatusOK {
		t.Errorf("host and port of a literal proxy_pass, with a variable URI: status %d, want 200", r.Status)
	}
	if n := matched.Hits("matched"); n != 1 {
		t.Errorf("the backend of the literal proxy_pass saw the request %d times, want 1", n)
	}
}
