package proof

import (
	"fmt"
	"net/http"
	"testing"
)

const sequentialRequests = 5

// sendSequential sends sequentialRequests GETs one after the other and
// requires each to succeed.
func sendSequential(t *testing.T, url, idPrefix string) {
	t.Helper()
	for i := range sequentialRequests {
		if r := send(t, http.MethodGet, url, fmt.Sprintf("%s-%d", idPrefix, i)); r.Status != http.StatusOK {
			t.Fatalf("request %d: status %d, want 200", i, r.Status)
		}
	}
}

func distinct(ports []int) int {
	set := map[int]bool{}
	for _, p := range ports {
		set[p] = true
	}
	return len(set)
}

// A proxy_pass to an address with no upstream{} block creates an implicit
// upstream, which never has a keepalive pool. nginx 1.22 predates the
// 1.29.7 proxy defaults (HTTP/1.1 to upstreams, no "Connection: close"),
// so the location sets both explicitly: even with them, nothing is reused.
func TestImplicitUpstreamOpensConnectionPerRequest(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    location / {
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass http://%s;
    }
}
`, addr, be.Addr), addr)

	sendSequential(t, srv.URL(), "implicit")

	conns, reqs := be.snapshot()
	if len(reqs) != sequentialRequests {
		t.Fatalf("backend saw %d requests, want %d", len(reqs), sequentialRequests)
	}
	if len(conns) != sequentialRequests {
		t.Errorf("backend accepted %d connections for %d requests, want one per request", len(conns), sequentialRequests)
	}
	var ports []int
	for _, r := range reqs {
		ports = append(ports, r.RemotePort)
	}
	if n := distinct(ports); n != sequentialRequests {
		t.Errorf("requests came from %d distinct remote ports %v, want %d", n, ports, sequentialRequests)
	}
}

// An upstream{} block with keepalive keeps idle connections and reuses
// them. As above, the location sets the 1.29.7 proxy defaults explicitly
// (nginx 1.22 sends HTTP/1.0 and "Connection: close" otherwise, which
// defeats any pool).
func TestNamedUpstreamWithKeepaliveReusesConnection(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
upstream pool {
    server %s;
    keepalive 8;
}
server {
    listen %s;
    location / {
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass http://pool;
    }
}
`, be.Addr, addr), addr)

	sendSequential(t, srv.URL(), "pooled")

	conns, reqs := be.snapshot()
	if len(reqs) != sequentialRequests {
		t.Fatalf("backend saw %d requests, want %d", len(reqs), sequentialRequests)
	}
	if len(conns) != 1 {
		t.Errorf("backend accepted %d connections (ports %v) for %d sequential requests, want 1", len(conns), conns, sequentialRequests)
	}
	for i, r := range reqs {
		if r.RemotePort != conns[0] {
			t.Errorf("request %d came from port %d, want the pooled connection's port %d", i, r.RemotePort, conns[0])
		}
	}
}
