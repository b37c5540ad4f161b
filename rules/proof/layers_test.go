package proof

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

// layersSetup starts one nginx with two proxy layers in front of a
// backend: outer (the client's entry point) → inner → backend. The outer
// layer generates the request id, forwards it in X-Request-Id and returns
// it to the client; each layer logs it with its status in its own access
// log (outer.log, inner.log). The inner layer marks every response it
// makes with "X-Layer: inner".
func layersSetup(t *testing.T, outerTimeout, innerTimeout string) (*backend, *nginxtest.Server) {
	t.Helper()
	be := newBackend(t)
	outer, inner := freeAddr(t), freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    access_log logs/outer.log proof;
    location / {
        proxy_read_timeout %[3]s;
        proxy_set_header X-Request-Id $request_id;
        add_header X-Request-Id $request_id always;
        proxy_pass http://%[2]s;
    }
}
server {
    listen %[2]s;
    access_log logs/inner.log proof;
    location / {
        proxy_read_timeout %[4]s;
        add_header X-Layer inner always;
        proxy_pass http://%[5]s;
    }
}
`, outer, inner, outerTimeout, innerTimeout, be.Addr), outer, inner)
	return be, srv
}

// requestID returns the id the outer layer generated for the reply.
func requestID(t *testing.T, r reply) string {
	t.Helper()
	id := r.Header.Get("X-Request-Id")
	if len(id) != 32 {
		t.Fatalf("reply carries request id %q, want the outer layer's 32-character $request_id", id)
	}
	return id
}

// With equal read timeouts on both layers, both timers expire at about the
// same moment. The outer always logs 504. The inner logs 504 if its own
// timer fires before it notices the outer closing the connection, and 499
// otherwise: which one is a race (on an idle machine the inner usually
// logs 504), and a 499 in the inner log is then noise, not a client that
// gave up.
func TestEqualReadTimeoutsRace(t *testing.T) {
	t.Parallel()
	be, srv := layersSetup(t, "1s", "1s")
	r := send(t, http.MethodGet, srv.URL()+"/?sleep=3s", "")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "one timed-out attempt", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	id := requestID(t, r)

	if st := logStatus(t, srv, "outer.log", id); st != "504" {
		t.Errorf("outer layer logged %s, want 504", st)
	}
	st := logStatus(t, srv, "inner.log", id)
	if st != "499" && st != "504" {
		t.Errorf("inner layer logged %s, want 499 or 504", st)
	}
	t.Logf("inner layer logged %s", st)
	if n := be.Hits(id); n != 1 {
		t.Errorf("backend saw the request %d times, want 1", n)
	}
}

// With the inner read timeout shorter than the outer one, the inner layer
// times out first and answers 504 itself; the outer layer passes that
// response on. Both log 504, and no 499 appears anywhere.
func TestShorterInnerTimeoutGivesCleanInner504(t *testing.T) {
	t.Parallel()
	be, srv := layersSetup(t, "2s", "1s")
	r := send(t, http.MethodGet, srv.URL()+"/?sleep=3s", "")
	wantStatus(t, r, http.StatusGatewayTimeout)
	// Well before the outer layer's 2s timeout.
	within(t, "the inner timeout", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	if got := r.Header.Get("X-Layer"); got != "inner" {
		t.Errorf("X-Layer %q, want %q: the 504 did not come from the inner layer", got, "inner")
	}
	id := requestID(t, r)

	if st := logStatus(t, srv, "inner.log", id); st != "504" {
		t.Errorf("inner layer logged %s, want 504", st)
	}
	if st := logStatus(t, srv, "outer.log", id); st != "504" {
		t.Errorf("outer layer logged %s, want 504", st)
	}
	for _, name := range []string{"outer.log", "inner.log"} {
		for _, line := range strings.Split(srv.Log(name), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[2] == "499" {
				t.Errorf("%s has a 499: %q", name, line)
			}
		}
	}
	if n := be.Hits(id); n != 1 {
		t.Errorf("backend saw the request %d times, want 1", n)
	}
}
