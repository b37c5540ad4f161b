package proof

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// streamBackend serves a stream of events on 127.0.0.1: every gap one
// event, count events in all, then one pause of silence (pause) before the
// last event. With http2 set it speaks HTTP/2 without TLS (as a gRPC
// server does) and frames each event as a gRPC message.
func streamBackend(t *testing.T, count int, gap, pause time.Duration, http2 bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		if http2 {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Trailer", "Grpc-Status")
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.WriteHeader(http.StatusOK)
		for i := 1; i <= count; i++ {
			d := gap
			if i == count && pause > 0 {
				d = pause
			}
			if i > 1 {
				select {
				case <-time.After(d):
				case <-r.Context().Done():
					return
				}
			}
			msg := fmt.Sprintf("data: %d\n\n", i)
			if http2 {
				// A gRPC message: no compression, a 4-byte length.
				n := len(msg)
				_, _ = w.Write([]byte{0, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
			}
			_, _ = fmt.Fprint(w, msg)
			f.Flush()
		}
		if http2 {
			w.Header().Set("Grpc-Status", "0")
		}
	})}
	if http2 {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// events sends a GET on a fresh connection and counts the events of the
// body that arrive before the stream ends, cleanly or not.
func events(t *testing.T, url string) (status, n int) {
	t.Helper()
	c := &http.Client{Timeout: clientTimeout, Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "data: ") {
			n++
		}
	}
	return resp.StatusCode, n
}

func streamSetup(t *testing.T, location, backendAddr string) string {
	t.Helper()
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
server {
    listen %s;
    location / {
        %s
    }
}
`, addr, strings.ReplaceAll(location, "BACKEND", backendAddr)), addr)
	return srv.URL()
}

// An event stream outlives proxy_read_timeout when each event comes
// sooner than it: the timeout bounds the silence between two reads, not
// the response (docs/semantics.md §A, long-lived streams). Eight events
// 300ms apart take 2.1s, twice the 1s read timeout.
func TestReadTimeoutBoundsSilenceOfEventStream(t *testing.T) {
	t.Parallel()
	be := streamBackend(t, 8, 300*time.Millisecond, 0, false)
	url := streamSetup(t, `
        proxy_pass http://BACKEND;
        proxy_buffering off;
        add_header X-Accel-Buffering no;
        proxy_read_timeout 1s;`, be)
	status, n := events(t, url)
	if status != http.StatusOK || n != 8 {
		t.Errorf("status %d, %d events; want 200 and all 8 events", status, n)
	}
}

// The same stream is cut when one silence is longer than the timeout:
// the client has the events before it and then a truncated response.
func TestReadTimeoutCutsEventStreamAfterSilence(t *testing.T) {
	t.Parallel()
	be := streamBackend(t, 4, 100*time.Millisecond, 1500*time.Millisecond, false)
	url := streamSetup(t, `
        proxy_pass http://BACKEND;
        proxy_buffering off;
        proxy_read_timeout 1s;`, be)
	status, n := events(t, url)
	if status != http.StatusOK || n != 3 {
		t.Errorf("status %d, %d events; want 200 and the 3 events before the 1.5s silence", status, n)
	}
}

// A gRPC call that streams outlives grpc_read_timeout the same way: each
// message resets it.
func TestGRPCReadTimeoutBoundsSilenceOfStream(t *testing.T) {
	t.Parallel()
	be := streamBackend(t, 8, 300*time.Millisecond, 0, true)
	url := streamSetup(t, `
        grpc_pass grpc://BACKEND;
        grpc_read_timeout 1s;`, be)
	status, n := events(t, url)
	if status != http.StatusOK || n != 8 {
		t.Errorf("status %d, %d messages; want 200 and all 8 messages", status, n)
	}
}

// And a silence longer than grpc_read_timeout ends the call.
func TestGRPCReadTimeoutCutsStreamAfterSilence(t *testing.T) {
	t.Parallel()
	be := streamBackend(t, 4, 100*time.Millisecond, 1500*time.Millisecond, true)
	url := streamSetup(t, `
        grpc_pass grpc://BACKEND;
        grpc_read_timeout 1s;`, be)
	status, n := events(t, url)
	if status != http.StatusOK || n != 3 {
		t.Errorf("status %d, %d messages; want 200 and the 3 messages before the 1.5s silence", status, n)
	}
}
