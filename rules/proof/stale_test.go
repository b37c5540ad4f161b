package proof

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// racyBackend is a raw HTTP/1.1 server on 127.0.0.1 that reproduces the
// keepalive race deterministically: on every connection it answers the
// first request and keeps the connection open, then reads the second
// request in full and closes the connection without answering, as a
// backend whose idle timeout fires just as a reused connection carries a
// new request.
type racyBackend struct {
	Addr string
	ln   net.Listener
	wg   sync.WaitGroup

	mu       sync.Mutex
	answered map[string]int // request id → times answered
	dropped  map[string]int // request id → times read and dropped
}

func newRacyBackend(t *testing.T) *racyBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &racyBackend{Addr: ln.Addr().String(), ln: ln, answered: map[string]int{}, dropped: map[string]int{}}
	var conns sync.Map
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Store(c, true)
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer conns.Delete(c)
				b.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		conns.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		b.wg.Wait()
	})
	return b
}

func (b *racyBackend) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(waitTimeout))
	r := bufio.NewReader(c)
	for n := 1; ; n++ {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		id := req.Header.Get("X-Request-Id")
		b.mu.Lock()
		if n == 1 {
			b.answered[id]++
		} else {
			b.dropped[id]++
		}
		b.mu.Unlock()
		if n > 1 {
			return // close without a response
		}
		body := req.Method + " " + id + "\n"
		if _, err := fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			return
		}
	}
}

func (b *racyBackend) counts(id string) (answered, dropped int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answered[id], b.dropped[id]
}

// staleSetup starts a racyBackend as the only server of an upstream with a
// keepalive pool, and primes the pool with one answered GET. The next
// request nginx sends goes out on that pooled connection and loses the
// race.
func staleSetup(t *testing.T, location string) (string, *racyBackend) {
	t.Helper()
	be := newRacyBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
upstream pool {
    server %s;
    keepalive 8;
}
server {
    listen %s;
    access_log logs/access.log proof;
    location / {
        %s
        %s
        proxy_pass http://pool;
    }
}
`, be.Addr, addr, http11, location), addr)
	if r := send(t, http.MethodGet, srv.URL(), "prime"); r.Status != http.StatusOK {
		t.Fatalf("priming request: status %d, want 200", r.Status)
	}
	return srv.URL(), be
}

// A GET that fails on a cached keepalive connection (the backend closed it
// without answering) is retried on a new connection, even though the
// upstream has a single server and single-server upstreams otherwise
// never retry: nginx gives the try back for an error on a cached
// connection.
func TestStaleKeepaliveConnectionRetriesGETOnSingleServer(t *testing.T) {
	t.Parallel()
	url, be := staleSetup(t, "")
	r := send(t, http.MethodGet, url, "stale-get")
	wantStatus(t, r, http.StatusOK)
	if a, d := be.counts("stale-get"); a != 1 || d != 1 {
		t.Errorf("backend answered the GET %d times and dropped it %d times, want 1 and 1", a, d)
	}
}

// A POST that fails the same way is not retried: nginx had started writing
// it, so it counts as non-idempotent and the default
// "proxy_next_upstream error timeout" does not cover that. The client gets
// 502 for a request the backend read but never answered.
func TestStaleKeepaliveConnectionFailsPOSTWith502(t *testing.T) {
	t.Parallel()
	url, be := staleSetup(t, "")
	r := send(t, http.MethodPost, url, "stale-post")
	wantStatus(t, r, http.StatusBadGateway)
	if a, d := be.counts("stale-post"); a != 0 || d != 1 {
		t.Errorf("backend answered the POST %d times and dropped it %d times, want 0 and 1", a, d)
	}
}

// With non_idempotent the POST is retried on a new connection and
// succeeds, at the price of possibly running twice on a backend that did
// act on it before closing.
func TestStaleKeepaliveConnectionRetriesPOSTWithNonIdempotent(t *testing.T) {
	t.Parallel()
	url, be := staleSetup(t, "proxy_next_upstream error timeout non_idempotent;")
	r := send(t, http.MethodPost, url, "stale-post-ni")
	wantStatus(t, r, http.StatusOK)
	if a, d := be.counts("stale-post-ni"); a != 1 || d != 1 {
		t.Errorf("backend answered the POST %d times and dropped it %d times, want 1 and 1", a, d)
	}
}

// A PUT that the backend read on a pooled connection and dropped is sent
// again to the same single server, even with proxy_next_upstream_tries 1:
// the try nginx gives back comes on top of the cap. Only a method nginx
// counts as non-idempotent (POST, PATCH, LOCK) is kept back.
func TestStaleKeepaliveConnectionRetriesPUTDespiteTriesOne(t *testing.T) {
	t.Parallel()
	url, be := staleSetup(t, "proxy_next_upstream_tries 1;")
	r := send(t, http.MethodPut, url, "stale-put")
	wantStatus(t, r, http.StatusOK)
	if a, d := be.counts("stale-put"); a != 1 || d != 1 {
		t.Errorf("backend answered the PUT %d times and dropped it %d times, want 1 and 1", a, d)
	}
}

// Without error among the conditions nothing is given back: the PUT fails
// with 502 after one try.
func TestStaleKeepaliveConnectionNotRetriedWithoutError(t *testing.T) {
	t.Parallel()
	url, be := staleSetup(t, "proxy_next_upstream timeout;")
	r := send(t, http.MethodPut, url, "stale-put-timeout")
	wantStatus(t, r, http.StatusBadGateway)
	if a, d := be.counts("stale-put-timeout"); a != 0 || d != 1 {
		t.Errorf("backend answered the PUT %d times and dropped it %d times, want 0 and 1", a, d)
	}
}
