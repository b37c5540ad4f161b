package proof

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/fcgi"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// nginx 1.22 predates the 1.29.7 proxy defaults (HTTP/1.1 to upstreams and
// no "Connection: close"). http11 sets them explicitly, so that a test
// shows what a 1.29.7 location does by default.
const http11 = `proxy_http_version 1.1;
        proxy_set_header Connection "";`

const sequentialRequests = 5

// connectionsFor starts a backend and an nginx with the given http-level
// upstream blocks and the given directives in location / (in both,
// "BACKEND" stands for the backend's address), sends sequentialRequests
// GETs one after the other, and returns the remote port of each request
// as the backend saw it and the number of connections the backend
// accepted.
func connectionsFor(t *testing.T, upstreams, location string) (ports []int, conns int) {
	t.Helper()
	_, ports, conns = connectionsTo(t, upstreams, location)
	return ports, conns
}

// connectionsTo is connectionsFor that also returns the backend.
func connectionsTo(t *testing.T, upstreams, location string) (be *backend, ports []int, conns int) {
	t.Helper()
	be = newBackend(t)
	addr := freeAddr(t)
	expand := func(s string) string { return strings.ReplaceAll(s, "BACKEND", be.Addr) }
	srv := startNginx(t, fmt.Sprintf(`
%s
server {
    listen %s;
    location / {
        %s
    }
}
`, expand(upstreams), addr, expand(location)), addr)

	for i := range sequentialRequests {
		if r := send(t, http.MethodGet, srv.URL(), fmt.Sprintf("seq-%d", i)); r.Status != http.StatusOK {
			t.Fatalf("request %d: status %d, want 200", i, r.Status)
		}
	}
	accepted, reqs := be.snapshot()
	if len(reqs) != sequentialRequests {
		t.Fatalf("backend saw %d requests, want %d", len(reqs), sequentialRequests)
	}
	for _, r := range reqs {
		ports = append(ports, r.RemotePort)
	}
	return be, ports, len(accepted)
}

func distinct(ports []int) int {
	set := map[int]bool{}
	for _, p := range ports {
		set[p] = true
	}
	return len(set)
}

// wantConnectionPerRequest fails unless every request came on its own
// connection.
func wantConnectionPerRequest(t *testing.T, ports []int, conns int) {
	t.Helper()
	if conns != sequentialRequests || distinct(ports) != sequentialRequests {
		t.Errorf("%d sequential requests came on %d connections from %d distinct ports %v, want one connection each",
			sequentialRequests, conns, distinct(ports), ports)
	}
}

// A proxy_pass to an address with no upstream{} block creates an implicit
// upstream, which never has a keepalive pool: even with the 1.29.7 proxy
// defaults every request opens a new connection.
func TestImplicitUpstreamOpensConnectionPerRequest(t *testing.T) {
	t.Parallel()
	ports, conns := connectionsFor(t, "", http11+`
        proxy_pass http://BACKEND;`)
	wantConnectionPerRequest(t, ports, conns)
}

// An upstream{} block with keepalive keeps idle connections and reuses
// them: sequential requests share a single connection.
func TestNamedUpstreamWithKeepaliveReusesConnection(t *testing.T) {
	t.Parallel()
	ports, conns := connectionsFor(t, `
upstream pool {
    server BACKEND;
    keepalive 8;
}`, http11+`
        proxy_pass http://pool;`)
	if conns != 1 || distinct(ports) != 1 {
		t.Errorf("%d sequential requests came on %d connections from ports %v, want 1 connection", sequentialRequests, conns, ports)
	}
}

// With the proxy defaults before 1.29.7 (HTTP/1.0 and "Connection: close"
// to the upstream, which is what nginx 1.22 does when the location says
// nothing), keepalive in the upstream block does nothing.
func TestKeepaliveWithPre1297ProxyDefaultsOpensConnectionPerRequest(t *testing.T) {
	t.Parallel()
	ports, conns := connectionsFor(t, `
upstream pool {
    server BACKEND;
    keepalive 8;
}`, `proxy_pass http://pool;`)
	wantConnectionPerRequest(t, ports, conns)
}

// proxy_set_header Connection close defeats the pool even with HTTP/1.1.
func TestConnectionCloseHeaderDefeatsKeepalive(t *testing.T) {
	t.Parallel()
	ports, conns := connectionsFor(t, `
upstream pool {
    server BACKEND;
    keepalive 8;
}`, `proxy_http_version 1.1;
        proxy_set_header Connection close;
        proxy_pass http://pool;`)
	wantConnectionPerRequest(t, ports, conns)
}

// connectionsAcrossIdle sends a GET through an upstream pool, waits two
// seconds, sends another, and returns how many connections the backend
// accepted; httpLevel and upstreamLevel are directives for the http block
// and the upstream block.
func connectionsAcrossIdle(t *testing.T, httpLevel, upstreamLevel string) int {
	t.Helper()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
%s
upstream pool {
    server %s;
    keepalive 4;
    %s
}
server {
    listen %s;
    location / {
        `+http11+`
        proxy_pass http://pool;
    }
}
`, httpLevel, be.Addr, upstreamLevel, addr), addr)
	for _, id := range []string{"before-idle", "after-idle"} {
		if id == "after-idle" {
			time.Sleep(2 * time.Second)
		}
		if r := send(t, http.MethodGet, srv.URL(), id); r.Status != http.StatusOK {
			t.Fatalf("%s: status %d", id, r.Status)
		}
	}
	return len(be.Conns())
}

// The http-level keepalive_timeout is about client connections: an
// upstream pool keeps its idle connections for the keepalive_timeout of
// its own upstream{} block (60 s by default), not for the http one. With
// "keepalive_timeout 1s" at http level, a pooled connection is still
// reused two seconds later.
func TestHTTPKeepaliveTimeoutDoesNotBoundThePool(t *testing.T) {
	t.Parallel()
	if n := connectionsAcrossIdle(t, "keepalive_timeout 1s;", ""); n != 1 {
		t.Errorf("the backend accepted %d connections, want 1: the pool must outlive the http-level keepalive_timeout", n)
	}
}

// ... while keepalive_timeout inside the upstream block does bound it.
func TestUpstreamKeepaliveTimeoutBoundsThePool(t *testing.T) {
	t.Parallel()
	if n := connectionsAcrossIdle(t, "", "keepalive_timeout 1s;"); n != 2 {
		t.Errorf("the backend accepted %d connections, want 2: the pool closes idle connections after the upstream's keepalive_timeout", n)
	}
}

// websocketIdiom is what a location that passes WebSocket upgrades on sends
// with every request: the client's Upgrade header (none for a plain
// request) and "Connection: upgrade".
const websocketIdiom = `proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection "upgrade";`

// TestConnectionUpgradeOnPlainRequestsPools: a location that sends
// "Connection: upgrade" with every request is not a WebSocket-only stream.
// A request without an Upgrade header goes out with "Connection: upgrade"
// and no Upgrade, the backend answers it as a plain request, and nginx
// returns the connection to the upstream's pool: with keepalive 8 five
// GETs share one connection, without it each opens its own. So the
// pooling of such a location's upstream matters (upstream-no-keepalive
// judges it), and a keepalive in that upstream is used.
func TestConnectionUpgradeOnPlainRequestsPools(t *testing.T) {
	t.Parallel()
	be, ports, conns := connectionsTo(t, `
upstream pool {
    server BACKEND;
    keepalive 8;
}`, websocketIdiom+`
        proxy_pass http://pool;`)
	first := be.Requests("seq-0")
	if len(first) != 1 {
		t.Fatalf("the backend saw the first request %d times, want 1", len(first))
	}
	for _, r := range first {
		if !strings.EqualFold(r.Connection, "upgrade") || r.Upgrade != "" {
			t.Errorf("the backend got Connection %q and Upgrade %q, want \"upgrade\" and none", r.Connection, r.Upgrade)
		}
	}
	if conns != 1 || distinct(ports) != 1 {
		t.Errorf("with keepalive 8, %d plain requests came on %d connections from ports %v, want 1 connection", sequentialRequests, conns, ports)
	}
	ports, conns = connectionsFor(t, `
upstream pool {
    server BACKEND;
}`, websocketIdiom+`
        proxy_pass http://pool;`)
	wantConnectionPerRequest(t, ports, conns)
}

// fastcgiConnections starts a FastCGI backend (net/http/fcgi, which keeps
// a connection open only when nginx asks it to, FCGI_KEEP_CONN) behind an
// upstream with keepalive 8, sends sequentialRequests GETs through the
// location, which holds the given directives, and returns how many
// connections the backend accepted.
func fastcgiConnections(t *testing.T, location string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingListener{Listener: ln}
	go func() {
		_ = fcgi.Serve(counted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "ok\n")
		}))
	}()
	t.Cleanup(func() { _ = ln.Close() })
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
upstream php {
    server %s;
    keepalive 8;
}
server {
    listen %s;
    location / {
        fastcgi_param REQUEST_METHOD $request_method;
        fastcgi_param SERVER_PROTOCOL $server_protocol;
        fastcgi_param REQUEST_URI $request_uri;
        fastcgi_param SCRIPT_NAME $uri;
        fastcgi_param SERVER_NAME localhost;
        fastcgi_param SERVER_PORT 80;
        fastcgi_param REMOTE_ADDR $remote_addr;
        fastcgi_pass php;
        %s
    }
}
`, ln.Addr(), addr, location), addr)
	for i := range sequentialRequests {
		if r := send(t, http.MethodGet, srv.URL()+"/", fmt.Sprintf("fcgi-%d", i)); r.Status != http.StatusOK {
			t.Fatalf("request %d: status %d, want 200", i, r.Status)
		}
	}
	return int(counted.accepted.Load())
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// TestFastCGIWithoutKeepConnNeverPools: without fastcgi_keep_conn on,
// nginx asks the FastCGI server to close the connection after each
// request, so an upstream pool (keepalive 8 here; the default pool of
// 1.29.7 is the same) is never used: five requests, five connections. No
// release changed fastcgi_keep_conn's default (off), so this holds on all,
// and upstream-no-keepalive says that keepalive alone would change
// nothing. With fastcgi_keep_conn on, the five share one connection.
func TestFastCGIWithoutKeepConnNeverPools(t *testing.T) {
	t.Parallel()
	if n := fastcgiConnections(t, ""); n != sequentialRequests {
		t.Errorf("without fastcgi_keep_conn, the backend accepted %d connections for %d requests, want one each", n, sequentialRequests)
	}
	if n := fastcgiConnections(t, "fastcgi_keep_conn on;"); n != 1 {
		t.Errorf("with fastcgi_keep_conn on, the backend accepted %d connections for %d requests, want 1", n, sequentialRequests)
	}
}

// TestWebsocketMapToCloseDefeatsKeepalive: the websocket map of nginx's
// documentation, which maps a request without Upgrade to "close", sends
// "Connection: close" with every plain request: with keepalive 8 five
// GETs still open five connections, on any release (the header is
// written in the configuration).
func TestWebsocketMapToCloseDefeatsKeepalive(t *testing.T) {
	t.Parallel()
	ports, conns := connectionsFor(t, `
map $http_upgrade $connection_upgrade {
    default upgrade;
    ''      close;
}
upstream pool {
    server BACKEND;
    keepalive 8;
}`, `proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_pass http://pool;`)
	wantConnectionPerRequest(t, ports, conns)
}
