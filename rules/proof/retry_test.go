package proof

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Bounds for "n read timeouts of 1s": nginx cannot answer before n
// timeouts have run, and a loaded two-core machine adds well under a
// second.
const (
	oneTimeoutMin = 900 * time.Millisecond
	oneTimeoutMax = 1900 * time.Millisecond
	twoTimeoutMin = 1800 * time.Millisecond
	twoTimeoutMax = 2900 * time.Millisecond
)

// retrySetup starts n backends and an nginx whose upstream "pool" lists
// them in order, with location / holding the given directives followed by
// "proxy_pass http://pool;".
func retrySetup(t *testing.T, n int, location string) (url string, bes []*backend) {
	t.Helper()
	var servers strings.Builder
	for range n {
		be := newBackend(t)
		bes = append(bes, be)
		fmt.Fprintf(&servers, "    server %s;\n", be.Addr)
	}
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
upstream pool {
%s}
server {
    listen %s;
    access_log logs/access.log proof;
    location / {
%s
        proxy_pass http://pool;
    }
}
`, servers.String(), addr, location), addr)
	return srv.URL(), bes
}

// hits returns the number of times each backend saw the request id.
func hits(bes []*backend, id string) []int {
	var out []int
	for _, be := range bes {
		out = append(out, be.Hits(id))
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// wantHits fails unless every backend saw the request exactly want[i] times.
func wantHits(t *testing.T, bes []*backend, id string, want ...int) {
	t.Helper()
	got := hits(bes, id)
	if len(want) != len(got) {
		t.Fatalf("want counts for %d backends, have %d", len(want), len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("backends saw request %s %v times, want %v", id, got, want)
			return
		}
	}
}

// wantTotalHits fails unless the backends saw the request total times in
// all, none of them more than once (which backend nginx picks first is
// not part of the claim).
func wantTotalHits(t *testing.T, bes []*backend, id string, total int) {
	t.Helper()
	got := hits(bes, id)
	if sum(got) != total {
		t.Errorf("backends saw request %s %v times, want %d in total", id, got, total)
	}
	for _, n := range got {
		if n > 1 {
			t.Errorf("a backend saw request %s more than once: %v", id, got)
		}
	}
}

func wantStatus(t *testing.T, r reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Errorf("status %d, want %d (body %q)", r.Status, status, r.Body)
	}
}

// The default "proxy_next_upstream error timeout" retries a GET whose
// response header did not arrive within proxy_read_timeout on the next
// server, so a hung request runs on every server and the client waits for
// every timeout before getting 504.
func TestDefaultNextUpstreamRetriesTimedOutGET(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, "proxy_read_timeout 1s;")
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-hang")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "two timed-out attempts", r.Elapsed, twoTimeoutMin, twoTimeoutMax)
	wantHits(t, bes, "get-hang", 1, 1)
}

// The default policy passes a PUT or DELETE that timed out after the
// first server received it to the second, without non_idempotent: nginx
// counts only POST, LOCK and PATCH as non-idempotent. Both servers run it.
// This is what retry-timeout-write reports for a location that carries an
// application's writes (the named location behind location /'s
// try_files, as Discourse's sample sets it up).
func TestDefaultNextUpstreamRetriesTimedOutPUTAndDELETE(t *testing.T) {
	t.Parallel()
	for _, m := range []string{http.MethodPut, http.MethodDelete} {
		// A setup each: two timeouts mark both servers failed for
		// fail_timeout (10s), and the next request would get 502.
		url, bes := retrySetup(t, 2, "proxy_read_timeout 1s;")
		id := strings.ToLower(m) + "-hang"
		r := send(t, m, url+"/?sleep=3s", id)
		wantStatus(t, r, http.StatusGatewayTimeout)
		within(t, "two timed-out attempts", r.Elapsed, twoTimeoutMin, twoTimeoutMax)
		wantHits(t, bes, id, 1, 1)
	}
}

// With non_idempotent, a POST that timed out after it was sent is retried:
// the backends execute it twice.
func TestNonIdempotentRetriesPOSTAfterTimeout(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_read_timeout 1s;
        proxy_next_upstream error timeout non_idempotent;`)
	r := send(t, http.MethodPost, url+"/?sleep=3s", "post-hang")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "two timed-out attempts", r.Elapsed, twoTimeoutMin, twoTimeoutMax)
	wantHits(t, bes, "post-hang", 1, 1)
}

// Without non_idempotent, a POST that was sent is never passed to the
// next server: it runs once and the client gets 504 after one timeout.
func TestPOSTNotRetriedWithoutNonIdempotent(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_read_timeout 1s;
        proxy_next_upstream error timeout;`)
	r := send(t, http.MethodPost, url+"/?sleep=3s", "post-once")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "one timed-out attempt", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	wantTotalHits(t, bes, "post-once", 1)
}

// Without proxy_next_upstream_timeout, the worst case is tries ×
// proxy_read_timeout: three servers, three tries, three full timeouts.
func TestNextUpstreamTriesWithoutTimeoutMultipliesReadTimeout(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 3, `proxy_read_timeout 1s;
        proxy_next_upstream_tries 3;`)
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-3tries")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "three timed-out attempts", r.Elapsed, 2700*time.Millisecond, 3900*time.Millisecond)
	wantHits(t, bes, "get-3tries", 1, 1, 1)
}

// proxy_next_upstream_timeout is checked only when an attempt fails, and
// never cuts an attempt short: with 1500ms, the first attempt fails at 1s
// (under the limit, so nginx retries), the second runs its full second and
// fails at 2s (over the limit, so nginx gives up). Two tries, ~2s, and the
// third server never sees the request.
func TestNextUpstreamTimeoutBoundsRetries(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 3, `proxy_read_timeout 1s;
        proxy_next_upstream_tries 3;
        proxy_next_upstream_timeout 1500ms;`)
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-bounded")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "two timed-out attempts", r.Elapsed, twoTimeoutMin, twoTimeoutMax)
	wantTotalHits(t, bes, "get-bounded", 2)
}

// proxy_next_upstream_tries counts the first attempt: 1 means no retry.
func TestNextUpstreamTriesOneDisablesRetry(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_read_timeout 1s;
        proxy_next_upstream_tries 1;`)
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-1try")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "one timed-out attempt", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	wantTotalHits(t, bes, "get-1try", 1)
}

// An upstream with a single server has nothing to retry on, whatever
// proxy_next_upstream_tries says.
func TestSingleServerUpstreamNeverRetriesTimedOutGET(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 1, `proxy_read_timeout 1s;
        proxy_next_upstream_tries 3;`)
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-single")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "one timed-out attempt", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	wantHits(t, bes, "get-single", 1)
}

// Setting proxy_next_upstream replaces the inherited or default mask
// whole: "http_502" alone drops "error timeout", so a timed-out GET is no
// longer retried.
func TestNextUpstreamReplacesDefaultFlags(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_read_timeout 1s;
        proxy_next_upstream http_502;`)
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-replaced")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "one timed-out attempt", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	wantTotalHits(t, bes, "get-replaced", 1)
}

// "off" wins over every other flag on the same line.
func TestNextUpstreamOffOverridesOtherFlags(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_read_timeout 1s;
        proxy_next_upstream error timeout off;`)
	r := send(t, http.MethodGet, url+"/?sleep=3s", "get-off")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "one timed-out attempt", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
	wantTotalHits(t, bes, "get-off", 1)
}

// http_502 passes a GET that got a 502 to the next server: both servers
// run it and the client gets the last 502.
func TestHTTP502RetriesGET(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_next_upstream error timeout http_502;`)
	r := send(t, http.MethodGet, url+"/?status=502", "get-502")
	wantStatus(t, r, http.StatusBadGateway)
	wantHits(t, bes, "get-502", 1, 1)
}

// http_502 alone does not retry a POST that got a 502: the POST was sent,
// so it is non-idempotent and needs the non_idempotent flag too.
func TestHTTP502DoesNotRetryPOSTWithoutNonIdempotent(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_next_upstream error timeout http_502;`)
	r := send(t, http.MethodPost, url+"/?status=502", "post-502")
	wantStatus(t, r, http.StatusBadGateway)
	wantTotalHits(t, bes, "post-502", 1)
}

// With http_502 and non_idempotent, the POST that got a 502 runs again on
// the next server.
func TestHTTP502RetriesPOSTWithNonIdempotent(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_next_upstream error timeout http_502 non_idempotent;`)
	r := send(t, http.MethodPost, url+"/?status=502", "post-502-ni")
	wantStatus(t, r, http.StatusBadGateway)
	wantHits(t, bes, "post-502-ni", 1, 1)
}

// "error" is not only a failed connect: a connection the server closes
// after it read the request, before the response header, is an error too
// ("upstream prematurely closed connection"). With non_idempotent, nginx
// then sends a POST the first server already received to the next one.
func TestErrorNonIdempotentReplaysPOSTClosedBeforeHeader(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_next_upstream error non_idempotent;`)
	r := send(t, http.MethodPost, url+"/?drop=1", "post-dropped")
	wantStatus(t, r, http.StatusBadGateway)
	wantHits(t, bes, "post-dropped", 1, 1)
}

// Without non_idempotent, plain "error" still sends a PUT or DELETE that
// the first server received and dropped to the next server.
func TestErrorRetriesPUTAndDELETEClosedBeforeHeader(t *testing.T) {
	t.Parallel()
	for _, m := range []string{http.MethodPut, http.MethodDelete} {
		// A fresh nginx per method: a failed try marks the server down
		// for fail_timeout.
		url, bes := retrySetup(t, 2, `proxy_next_upstream error;`)
		id := strings.ToLower(m) + "-dropped"
		r := send(t, m, url+"/?drop=1", id)
		wantStatus(t, r, http.StatusBadGateway)
		wantHits(t, bes, id, 1, 1)
	}
}

// ... and a POST it does not: nginx passes a request on after it was sent
// only for methods other than POST, PATCH and LOCK.
func TestErrorDoesNotRetryPOSTClosedBeforeHeader(t *testing.T) {
	t.Parallel()
	url, bes := retrySetup(t, 2, `proxy_next_upstream error;`)
	r := send(t, http.MethodPost, url+"/?drop=1", "post-dropped-once")
	wantStatus(t, r, http.StatusBadGateway)
	wantTotalHits(t, bes, "post-dropped-once", 1)
}

// try_files hands a request to a named location, and the named location's
// settings apply to what it proxies: a read timeout of 10s in the calling
// location does not, the named location's 1s does (docs/semantics.md §0b).
func TestNamedLocationSettingsApply(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    location / {
        proxy_read_timeout 10s;
        try_files /nonexistent @app;
    }
    location @app {
        proxy_read_timeout 1s;
        proxy_pass http://%s;
    }
}
`, addr, be.Addr), addr)
	r := send(t, http.MethodGet, srv.URL()+"/?sleep=3s", "named")
	wantStatus(t, r, http.StatusGatewayTimeout)
	within(t, "the named location's 1s read timeout", r.Elapsed, oneTimeoutMin, oneTimeoutMax)
}
