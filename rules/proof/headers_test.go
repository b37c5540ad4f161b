package proof

import (
	"fmt"
	"net"
	"net/http"
	"net/http/fcgi"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// headerBackend records, for each X-Request-Id, the Host, X-Forwarded-For
// and X-Extra headers it got, whether the request asked to close the
// connection, and the connections it accepted.
type headerBackend struct {
	Addr string
	mu   sync.Mutex
	got  map[string]gotHeaders
	// conns counts accepted connections.
	conns int
}

type gotHeaders struct {
	Host, XFF, Extra string
	Close            bool
}

func newHeaderBackend(t *testing.T) *headerBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &headerBackend{Addr: ln.Addr().String(), got: map[string]gotHeaders{}}
	srv := &http.Server{
		ReadHeaderTimeout: waitTimeout,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b.mu.Lock()
			b.got[r.Header.Get("X-Request-Id")] = gotHeaders{Host: r.Host, XFF: r.Header.Get("X-Forwarded-For"), Extra: r.Header.Get("X-Extra"), Close: r.Close}
			b.mu.Unlock()
			w.WriteHeader(http.StatusOK)
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				b.mu.Lock()
				b.conns++
				b.mu.Unlock()
			}
		},
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return b
}

func (b *headerBackend) headers(id string) gotHeaders {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.got[id]
}

func (b *headerBackend) connections() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conns
}

// A location that writes one proxy_set_header gets none of the server's
// (set-header-drops-inherited): the backend sees Host as $proxy_host (the
// upstream's name), no X-Forwarded-For, and, without the server's
// Connection "", nginx 1.22's default "Connection: close", so the keepalive
// pool is not reused: three requests open three connections, where the
// location that inherits the server's list carries them on one. The server
// level sets proxy_http_version 1.1 and Connection "" as nginx 1.29.7's
// defaults would.
func TestProxySetHeaderInBlockDropsOuterList(t *testing.T) {
	t.Parallel()
	inherits, writes := newHeaderBackend(t), newHeaderBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
upstream inherits_pool { server %[2]s; keepalive 8; }
upstream writes_pool { server %[3]s; keepalive 8; }
server {
    listen %[1]s;
    proxy_http_version 1.1;
    proxy_set_header Host app.example;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header Connection "";
    location /inherits/ {
        proxy_pass http://inherits_pool;
    }
    location /writes/ {
        proxy_set_header X-Extra 1;
        proxy_pass http://writes_pool;
    }
}
`, addr, inherits.Addr, writes.Addr), addr)
	for i := range 3 {
		send(t, http.MethodGet, srv.URL()+"/inherits/x", fmt.Sprintf("inherits-%d", i))
		send(t, http.MethodGet, srv.URL()+"/writes/x", fmt.Sprintf("writes-%d", i))
	}
	if h := inherits.headers("inherits-0"); h.Host != "app.example" || h.XFF != "127.0.0.1" || h.Close {
		t.Errorf("location without proxy_set_header: got %+v; want the server's Host, X-Forwarded-For and no Connection: close", h)
	}
	if n := inherits.connections(); n != 1 {
		t.Errorf("location without proxy_set_header: %d connections for 3 requests, want 1 (pooled)", n)
	}
	if h := writes.headers("writes-0"); h.Host != "writes_pool" || h.XFF != "" || !h.Close || h.Extra != "1" {
		t.Errorf("location with its own proxy_set_header: got %+v; want Host writes_pool ($proxy_host), no X-Forwarded-For, Connection: close and X-Extra 1", h)
	}
	if n := writes.connections(); n != 3 {
		t.Errorf("location with its own proxy_set_header: %d connections for 3 requests, want 3 (Connection: close)", n)
	}
}

// add_header behaves the same (gixy's add_header_redefinition): the
// location that adds Cache-Control answers without the server's
// X-Frame-Options; one without add_header of its own keeps it.
func TestAddHeaderInBlockDropsOuterList(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    add_header X-Frame-Options DENY;
    location /inherits/ {
        return 200 "ok";
    }
    location /writes/ {
        add_header Cache-Control no-store;
        return 200 "ok";
    }
}
`, addr), addr)
	if r := send(t, http.MethodGet, srv.URL()+"/inherits/", ""); r.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("location without add_header: X-Frame-Options %q, want DENY", r.Header.Get("X-Frame-Options"))
	}
	r := send(t, http.MethodGet, srv.URL()+"/writes/", "")
	if r.Header.Get("X-Frame-Options") != "" || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("location with its own add_header: X-Frame-Options %q, Cache-Control %q; want none and no-store", r.Header.Get("X-Frame-Options"), r.Header.Get("Cache-Control"))
	}
}

// An add_header with an empty value adds no header, so a block that drops
// it loses nothing; but add_header ETag "" removes the ETag the backend
// sent, so a block that drops that entry lets the ETag through
// (set-header-drops-inherited, Discourse's add_header ETag "").
func TestAddHeaderEmptyValue(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	backend := &http.Server{ReadHeaderTimeout: waitTimeout, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.WriteHeader(http.StatusOK)
	})}
	go func() { _ = backend.Serve(ln) }()
	t.Cleanup(func() { _ = backend.Close() })
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    location /empty/ {
        add_header X-Debug "";
        return 200 "ok";
    }
    location /clears/ {
        add_header ETag "";
        proxy_pass http://%[2]s;
        location /clears/kept/ {
            add_header Cache-Control no-store;
            proxy_pass http://%[2]s;
        }
    }
}
`, addr, ln.Addr().String()), addr)
	if r := send(t, http.MethodGet, srv.URL()+"/empty/", ""); len(r.Header.Values("X-Debug")) != 0 {
		t.Errorf("add_header X-Debug \"\": the response has X-Debug %q, want no such header", r.Header.Values("X-Debug"))
	}
	if r := send(t, http.MethodGet, srv.URL()+"/clears/", ""); len(r.Header.Values("ETag")) != 0 {
		t.Errorf("add_header ETag \"\": the response has ETag %q, want none", r.Header.Values("ETag"))
	}
	if r := send(t, http.MethodGet, srv.URL()+"/clears/kept/", ""); r.Header.Get("ETag") != `"v1"` {
		t.Errorf("nested location with its own add_header: ETag %q, want the backend's \"v1\"", r.Header.Get("ETag"))
	}
}

// fastcgi_param too: a location that writes SCRIPT_FILENAME loses the
// server's HTTPS on, and the FastCGI application (Go's net/http/fcgi, which
// reads HTTPS into Request.TLS) takes the request for plain HTTP.
func TestFastCGIParamInBlockDropsOuterList(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var mu sync.Mutex
	tls := map[string]bool{}
	go func() {
		_ = fcgi.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			tls[r.URL.Path] = r.TLS != nil
			mu.Unlock()
			w.WriteHeader(http.StatusOK)
		}))
	}()
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    fastcgi_param HTTPS on;
    fastcgi_param REQUEST_METHOD $request_method;
    fastcgi_param REQUEST_URI $request_uri;
    fastcgi_param SERVER_PROTOCOL $server_protocol;
    location /inherits/ {
        fastcgi_pass %[2]s;
    }
    location /writes/ {
        fastcgi_param REQUEST_METHOD $request_method;
        fastcgi_param REQUEST_URI $request_uri;
        fastcgi_param SERVER_PROTOCOL $server_protocol;
        fastcgi_pass %[2]s;
    }
}
`, addr, ln.Addr().String()), addr)
	for _, path := range []string{"/inherits/x", "/writes/x"} {
		if r := send(t, http.MethodGet, srv.URL()+path, ""); r.Status != http.StatusOK {
			t.Fatalf("%s: status %d, want 200", path, r.Status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !tls["/inherits/x"] {
		t.Errorf("location without fastcgi_param: the application did not get HTTPS on")
	}
	if tls["/writes/x"] {
		t.Errorf("location with its own fastcgi_param: the application got HTTPS on, want it lost")
	}
}

// With "etag off", the files nginx serves carry no ETag: a nested location
// whose own add_header drops the outer add_header ETag "" loses nothing
// there (set-header-drops-inherited leaves such a loss out where nothing
// is proxied, Discourse's static locations), while under the default
// "etag on" the same file carries one.
func TestEtagOffStaticFilesHaveNoETag(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, dir := range []string{"off/assets", "on/assets"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "a.css"), []byte("body{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    root %[2]s;
    location /off/ {
        etag off;
        add_header ETag "";
        location /off/assets/ {
            add_header Cache-Control public;
        }
    }
    location /on/ {
        location /on/assets/ {
            add_header Cache-Control public;
        }
    }
}
`, addr, root), addr)
	off := send(t, http.MethodGet, srv.URL()+"/off/assets/a.css", "")
	if off.Status != http.StatusOK || len(off.Header.Values("ETag")) != 0 || off.Header.Get("Cache-Control") != "public" {
		t.Errorf("etag off: status %d, ETag %q, Cache-Control %q; want 200, no ETag, public", off.Status, off.Header.Values("ETag"), off.Header.Get("Cache-Control"))
	}
	if on := send(t, http.MethodGet, srv.URL()+"/on/assets/a.css", ""); on.Status != http.StatusOK || on.Header.Get("ETag") == "" {
		t.Errorf("etag on (the default): status %d, ETag %q; want 200 and an ETag", on.Status, on.Header.Get("ETag"))
	}
}
