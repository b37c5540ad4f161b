package proof

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Directives of a pass module are read by that module's handler only
// (directive-no-effect). grpc_pass reads grpc_read_timeout and never
// proxy_read_timeout: with proxy_read_timeout 1s at http level, a gRPC
// call that is silent for 1.5s goes through whole (grpc_read_timeout keeps
// its default 60s), while grpc_read_timeout 1s cuts the same call after the
// messages before the silence.
func TestProxyTimeoutDoesNotBoundGRPC(t *testing.T) {
	t.Parallel()
	be := streamBackend(t, 4, 100*time.Millisecond, 1500*time.Millisecond, true)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
proxy_read_timeout 1s;
proxy_send_timeout 1s;
server {
    listen %[1]s;
    location /proxy-timeout/ {
        grpc_pass grpc://%[2]s;
    }
    location /grpc-timeout/ {
        grpc_pass grpc://%[2]s;
        grpc_read_timeout 1s;
    }
}
`, addr, be), addr)
	if status, n := events(t, srv.URL()+"/proxy-timeout/x"); status != http.StatusOK || n != 4 {
		t.Errorf("proxy_read_timeout 1s over grpc_pass: status %d, %d messages; want 200 and all 4 (proxy_read_timeout does not apply)", status, n)
	}
	if status, n := events(t, srv.URL()+"/grpc-timeout/x"); status != http.StatusOK || n != 3 {
		t.Errorf("grpc_read_timeout 1s: status %d, %d messages; want 200 and the 3 before the 1.5s silence", status, n)
	}
}

// A location whose try_files hands its requests to a named location does
// not pass them on itself: the named location runs with its own settings,
// inherited from the server, not the calling location's. proxy_read_timeout
// 1s in the calling location does not bound the backend's 1.5s answer
// (200); in a location that proxies itself, it does (504).
func TestNamedLocationRunsWithItsOwnTimeout(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    location @app {
        proxy_pass http://%[2]s;
    }
    location /via-named/ {
        proxy_read_timeout 1s;
        try_files /dev/null @app;
    }
    location /direct/ {
        proxy_read_timeout 1s;
        proxy_pass http://%[2]s;
    }
}
`, addr, be.Addr), addr)
	if r := send(t, http.MethodGet, srv.URL()+"/via-named/x?sleep=1500ms", "via-named"); r.Status != http.StatusOK {
		t.Errorf("proxy_read_timeout 1s in the location that hands requests to @app: status %d, want 200 (@app has the default 60s)", r.Status)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/direct/x?sleep=1500ms", "direct"); r.Status != http.StatusGatewayTimeout {
		t.Errorf("proxy_read_timeout 1s in the proxying location: status %d, want 504", r.Status)
	}
}

// A return at a location's level ends every request in the rewrite phase,
// before the content handler: proxy_pass beside it never runs and the
// backend sees nothing. A break before the return (in an if that matches)
// lets the handler run.
func TestReturnEndsRequestsBeforeProxyPass(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %[1]s;
    location /returns/ {
        return 204;
        proxy_pass http://%[2]s;
    }
    location /breaks/ {
        if ($http_x_request_id) { break; }
        return 204;
        proxy_pass http://%[2]s;
    }
}
`, addr, be.Addr), addr)
	if r := send(t, http.MethodGet, srv.URL()+"/returns/x", "returns"); r.Status != http.StatusNoContent {
		t.Errorf("return beside proxy_pass: status %d, want 204", r.Status)
	}
	if n := be.Hits("returns"); n != 0 {
		t.Errorf("return beside proxy_pass: the backend saw the request %d times, want 0", n)
	}
	if r := send(t, http.MethodGet, srv.URL()+"/breaks/x", "breaks"); r.Status != http.StatusOK || !strings.Contains(r.Body, "breaks") {
		t.Errorf("break before the return: status %d, body %q; want the backend's 200", r.Status, r.Body)
	}
}
