package proof

import (
	"fmt"
	"net/http"
	"testing"
)

// A server-level "if ($request_method ...) { return ...; }" runs for every
// request before a location is chosen; a location's runs for that
// location only, not for a location nested in it (the rewrite module's
// codes are not merged into nested locations: ngx_http_rewrite_module.c,
// ngx_http_rewrite_merge_loc_conf). The loader narrows a route's methods
// the same way (docs/semantics.md §B, methods a route carries).
func TestRequestMethodGuards(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    if ($request_method !~ ^(GET|HEAD|PUT)$) {
        return 405;
    }
    location /read/ {
        if ($request_method != GET) {
            return 405;
        }
        proxy_pass http://%s;
        location /read/nested/ {
            proxy_pass http://%s;
        }
    }
    location / {
        proxy_pass http://%s;
    }
}
`, addr, be.Addr, be.Addr, be.Addr), addr)
	for _, c := range []struct {
		method, path, id string
		status, hits     int
	}{
		{http.MethodPost, "/other/", "post-other", http.StatusMethodNotAllowed, 0},
		{http.MethodPut, "/other/", "put-other", http.StatusOK, 1},
		{http.MethodGet, "/read/", "get-read", http.StatusOK, 1},
		{http.MethodPut, "/read/", "put-read", http.StatusMethodNotAllowed, 0},
		{http.MethodPut, "/read/nested/", "put-nested", http.StatusOK, 1},
		{http.MethodPost, "/read/nested/", "post-nested", http.StatusMethodNotAllowed, 0},
	} {
		r := send(t, c.method, srv.URL()+c.path, c.id)
		if r.Status != c.status {
			t.Errorf("%s %s: status %d, want %d", c.method, c.path, r.Status, c.status)
		}
		if n := be.Hits(c.id); n != c.hits {
			t.Errorf("%s %s: backend saw it %d times, want %d", c.method, c.path, n, c.hits)
		}
	}
}
