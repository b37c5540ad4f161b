// Package proof holds behaviour tests that run a real nginx in front of Go
// test backends and check the claims proxylint's nginx rules make. See
// README.md.
package proof

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

// waitTimeout bounds every wait for an event (a request reaching a
// backend, a handler ending, a log line). It is a guard against hangs;
// none of the behaviour under test comes close to it.
const waitTimeout = 5 * time.Second

// clientTimeout bounds a whole client request, again only as a hang guard:
// the longest behaviour under test (three 1s read timeouts) takes ~3s.
const clientTimeout = 8 * time.Second

// A request as one backend saw it.
type seen struct {
	ID         string // X-Request-Id
	Method     string
	RemotePort int  // local port of nginx's side of the upstream connection
	Finished   bool // the handler wrote its whole response
	WriteErr   error
	ClientGone bool // the upstream connection closed while the handler slept
	// Connection and Upgrade are the request's headers of those names.
	Connection, Upgrade string
}

// backend is an HTTP server on 127.0.0.1 that stands in for an upstream.
// It understands two query parameters: sleep=DURATION delays the response
// (a client that goes away ends the sleep early) and status=CODE sets the
// response status. It records every accepted connection and every request.
type backend struct {
	Addr string
	srv  *http.Server

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever a record changes
	conns   []int         // remote port of each accepted connection
	reqs    []*seen
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{Addr: ln.Addr().String(), changed: make(chan struct{})}
	b.srv = &http.Server{
		Handler:           b,
		ReadHeaderTimeout: waitTimeout,
		ConnState: func(c net.Conn, s http.ConnState) {
			if s == http.StateNew {
				b.update(func() { b.conns = append(b.conns, port(c.RemoteAddr().String())) })
			}
		},
	}
	go func() { _ = b.srv.Serve(ln) }()
	t.Cleanup(func() { _ = b.srv.Close() })
	return b
}

func port(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return -1
	}
	return n
}

// update applies f under the lock and wakes every waiter.
func (b *backend) update(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Reading the whole body lets net/http watch the connection, so that
	// r.Context() ends when nginx closes it.
	_, _ = io.Copy(io.Discard, r.Body)
	s := &seen{ID: r.Header.Get("X-Request-Id"), Method: r.Method, RemotePort: port(r.RemoteAddr),
		Connection: r.Header.Get("Connection"), Upgrade: r.Header.Get("Upgrade")}
	b.update(func() { b.reqs = append(b.reqs, s) })

	if r.URL.Query().Get("drop") != "" {
		// Read the request, then close the connection without a
		// response: what a backend that crashes mid-request does.
		b.update(func() { s.Finished = true })
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	status := http.StatusOK
	if v := r.URL.Query().Get("status"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			status = n
		}
	}
	if v := r.URL.Query().Get("sleep"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			b.update(func() { s.ClientGone = true })
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, err := fmt.Fprintf(w, "%s %s\n", s.Method, s.ID)
	if err == nil {
		err = http.NewResponseController(w).Flush()
	}
	b.update(func() { s.Finished, s.WriteErr = true, err })
}

// snapshot returns copies of the records.
func (b *backend) snapshot() (conns []int, reqs []seen) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.reqs {
		reqs = append(reqs, *r)
	}
	return append([]int(nil), b.conns...), reqs
}

// Hits returns how many times a request with this id reached the backend.
func (b *backend) Hits(id string) int {
	_, reqs := b.snapshot()
	n := 0
	for _, r := range reqs {
		if r.ID == id {
			n++
		}
	}
	return n
}

// Requests returns the records of the requests with this id.
func (b *backend) Requests(id string) []seen {
	_, reqs := b.snapshot()
	var out []seen
	for _, r := range reqs {
		if r.ID == id {
			out = append(out, r)
		}
	}
	return out
}

// Conns returns the remote ports of the accepted connections, in order.
func (b *backend) Conns() []int {
	conns, _ := b.snapshot()
	return conns
}

// Await waits until cond holds for the records, failing the test after
// waitTimeout.
func (b *backend) Await(t *testing.T, what string, cond func(reqs []seen) bool) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		_, reqs := b.snapshot()
		if cond(reqs) {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("backend %s: timed out after %v waiting for %s; saw %+v", b.Addr, waitTimeout, what, reqs)
		}
	}
}

// AwaitEnd waits until the request with this id has either finished or
// seen its connection close, and returns its record.
func (b *backend) AwaitEnd(t *testing.T, id string) seen {
	t.Helper()
	var s seen
	b.Await(t, "the end of request "+id, func(reqs []seen) bool {
		for _, r := range reqs {
			if r.ID == id && (r.Finished || r.ClientGone) {
				s = r
				return true
			}
		}
		return false
	})
	return s
}

// reply is what the test client got.
type reply struct {
	Status  int
	Header  http.Header
	Body    string
	Elapsed time.Duration
}

// send makes one request on a fresh connection and returns the reply. A
// non-empty id is sent as X-Request-Id.
func send(t *testing.T, method, url, id string) reply {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("payload")
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	c := &http.Client{
		Timeout:   clientTimeout,
		Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil},
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: string(b), Elapsed: time.Since(start)}
}

// logFormat is the access log format of every test server: the
// X-Request-Id the client or the previous layer sent, the id this nginx
// generated, and the status.
const logFormat = `log_format proof "$http_x_request_id $request_id $status";` + "\n"

// startNginx starts nginx with the http-level configuration body (which
// may use log format "proof") and waits until addrs listen.
func startNginx(t *testing.T, body string, addrs ...string) *nginxtest.Server {
	t.Helper()
	return nginxtest.Start(t, nginxtest.HTTPConf(logFormat+body), addrs...)
}

// freeAddr returns a free 127.0.0.1 address for nginx to listen on.
func freeAddr(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", nginxtest.FreePort(t))
}

// logStatus waits for the line of logs/name that carries id (as either
// field of log format "proof") and returns its status.
func logStatus(t *testing.T, srv *nginxtest.Server, name, id string) string {
	t.Helper()
	line := srv.WaitLog(t, name, func(l string) bool {
		f := strings.Fields(l)
		return len(f) == 3 && (f[0] == id || f[1] == id)
	})
	return strings.Fields(line)[2]
}

// within fails the test unless lo <= d < hi.
func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d >= hi {
		t.Errorf("%s took %v, want between %v and %v", what, d, lo, hi)
	}
}
