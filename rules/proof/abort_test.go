package proof

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

// abortSetup starts a backend and an nginx proxying to it with the given
// proxy_ignore_client_abort value ("" leaves the default).
func abortSetup(t *testing.T, ignore string) (*backend, *nginxtest.Server) {
	t.Helper()
	be := newBackend(t)
	addr := freeAddr(t)
	directive := ""
	if ignore != "" {
		directive = "proxy_ignore_client_abort " + ignore + ";"
	}
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    access_log logs/access.log proof;
    location / {
        %s
        proxy_read_timeout 3s;
        proxy_pass http://%s;
    }
}
`, addr, directive, be.Addr), addr)
	return be, srv
}

// abandon sends a GET that makes the backend sleep 1.5s and closes the
// client connection as soon as the request has reached the backend, long
// before the response is due.
func abandon(t *testing.T, be *backend, srv *nginxtest.Server, id string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", srv.Addrs[0], waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(waitTimeout))
	req := "GET /?sleep=1500ms HTTP/1.1\r\nHost: proof\r\nX-Request-Id: " + id + "\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	be.Await(t, "request "+id+" to arrive", func(reqs []seen) bool {
		for _, r := range reqs {
			if r.ID == id {
				return true
			}
		}
		return false
	})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// With proxy_ignore_client_abort on, nginx keeps the upstream request
// going after the client left: the backend finishes and writes its whole
// response, and the access log shows the upstream's 200, not 499.
func TestIgnoreClientAbortOnLogs200AndBackendCompletes(t *testing.T) {
	t.Parallel()
	be, srv := abortSetup(t, "on")
	const id = "abort-ignored"
	abandon(t, be, srv, id)

	s := be.AwaitEnd(t, id)
	if s.ClientGone || !s.Finished || s.WriteErr != nil {
		t.Errorf("backend: finished=%v write error=%v connection closed early=%v; want a completed handler", s.Finished, s.WriteErr, s.ClientGone)
	}
	if st := logStatus(t, srv, "access.log", id); st != "200" {
		t.Errorf("access log status %s, want 200", st)
	}
	if n := be.Hits(id); n != 1 {
		t.Errorf("backend saw the request %d times, want 1", n)
	}
}

// With the default proxy_ignore_client_abort off, nginx notices the client
// closing, closes the upstream connection and logs 499: the backend's
// connection goes away while its handler is still sleeping.
func TestClientAbortOffLogs499AndClosesUpstream(t *testing.T) {
	t.Parallel()
	be, srv := abortSetup(t, "")
	const id = "abort-default"
	abandon(t, be, srv, id)

	s := be.AwaitEnd(t, id)
	if !s.ClientGone || s.Finished {
		t.Errorf("backend: finished=%v connection closed early=%v; want the upstream connection closed before the handler finished", s.Finished, s.ClientGone)
	}
	if st := logStatus(t, srv, "access.log", id); st != "499" {
		t.Errorf("access log status %s, want 499", st)
	}
}
