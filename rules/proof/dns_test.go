package proof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

// dnsServer is a DNS server on 127.0.0.1 for nginx's resolver directive:
// it answers A queries for the names it was given (TTL 1s), NODATA for
// other types of those names, NXDOMAIN otherwise, and counts the queries
// for each name.
type dnsServer struct {
	Addr string
	mu   sync.Mutex
	a    map[string]net.IP // lower-case name without the final dot
	asks map[string]int
}

func newDNSServer(t *testing.T) *dnsServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dnsServer{Addr: pc.LocalAddr().String(), a: map[string]net.IP{}, asks: map[string]int{}}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out, ok := d.answer(buf[:n]); ok {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	return d
}

// set makes name resolve to ip from now on.
func (d *dnsServer) set(name, ip string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.a[strings.ToLower(name)] = net.ParseIP(ip).To4()
}

// queries is how many queries for name arrived.
func (d *dnsServer) queries(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asks[strings.ToLower(name)]
}

// answer builds the response to one query (RFC 1035, 4.1): the header with
// QR, AA and RA set, the question, and an A record pointing back at it.
func (d *dnsServer) answer(q []byte) ([]byte, bool) {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil, false
	}
	name, end, err := readName(q, 12)
	if err != nil || end+4 > len(q) {
		return nil, false
	}
	qtype := binary.BigEndian.Uint16(q[end : end+2])
	d.mu.Lock()
	d.asks[name]++
	ip, known := d.a[name]
	d.mu.Unlock()

	out := make([]byte, 0, end+4+16)
	out = append(out, q[0], q[1])
	flags := uint16(0x8000 | 0x0400 | 0x0080) // QR, AA, RA
	flags |= binary.BigEndian.Uint16(q[2:4]) & 0x0100
	if !known {
		flags |= 3 // NXDOMAIN
	}
	ancount := uint16(0)
	if known && qtype == 1 {
		ancount = 1
	}
	out = binary.BigEndian.AppendUint16(out, flags)
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, ancount)
	out = binary.BigEndian.AppendUint16(out, 0)
	out = binary.BigEndian.AppendUint16(out, 0)
	out = append(out, q[12:end+4]...)
	if ancount == 1 {
		out = append(out, 0xc0, 12) // the name, by a pointer to the question
		out = binary.BigEndian.AppendUint16(out, 1)
		out = binary.BigEndian.AppendUint16(out, 1)
		out = binary.BigEndian.AppendUint32(out, 1)
		out = binary.BigEndian.AppendUint16(out, 4)
		out = append(out, ip...)
	}
	return out, true
}

func readName(b []byte, off int) (string, int, error) {
	var labels []string
	for {
		if off >= len(b) {
			return "", 0, errors.New("short name")
		}
		n := int(b[off])
		off++
		if n == 0 {
			return strings.ToLower(strings.Join(labels, ".")), off, nil
		}
		if n&0xc0 != 0 || off+n > len(b) {
			return "", 0, errors.New("unexpected label")
		}
		labels = append(labels, string(b[off:off+n]))
		off += n
	}
}

// namedBackends are two HTTP servers on the same port, one on 127.0.0.1
// and one on 127.0.0.2 (the whole of 127.0.0.0/8 is the loopback
// interface on Linux), each answering with its own name: which address a
// request went to shows in the answer.
func namedBackends(t *testing.T) (port int) {
	t.Helper()
	for range 20 {
		second, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			nginxtest.Unavailable(t, fmt.Sprintf("cannot listen on 127.0.0.2: %v", err))
		}
		port = second.Addr().(*net.TCPAddr).Port
		first, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			_ = second.Close()
			continue
		}
		for ln, name := range map[net.Listener]string{first: "first", second: "second"} {
			srv := &http.Server{ReadHeaderTimeout: waitTimeout, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = fmt.Fprint(w, name)
			})}
			go func() { _ = srv.Serve(ln) }()
			t.Cleanup(func() { _ = srv.Close() })
		}
		return port
	}
	t.Fatal("no port free on both 127.0.0.1 and 127.0.0.2")
	return 0
}

// A host name in an upstream block's server, or in a literal proxy_pass,
// is resolved once, when nginx reads its configuration, with the system's
// resolver (/etc/hosts names localhost 127.0.0.1): the resolver directive
// is not asked, and what DNS says does not matter, until a reload. A name
// from a variable is looked up through the resolver for the requests that
// come, and follows a change once the answer's 1s expires (up to 2 s: nginx counts whole seconds)
// (upstream-dns-stale). The test's DNS server says localhost is 127.0.0.2,
// and api.test 127.0.0.1, then 127.0.0.2. (The variable names another
// host: a value of the same host and port as the literal proxy_pass would
// use that pass's implicit upstream, resolved at start,
// TestComputedHostMatchesUpstreamsFirst.)
func TestNamesInUpstreamsResolvedOnceAtStart(t *testing.T) {
	t.Parallel()
	p := namedBackends(t)
	dns := newDNSServer(t)
	dns.set("localhost", "127.0.0.2")
	dns.set("api.test", "127.0.0.1")
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
resolver %[2]s valid=1s ipv6=off;
upstream block { server localhost:%[3]d; }
server {
    listen %[1]s;
    location /block/ { proxy_pass http://block; }
    location /literal/ { proxy_pass http://localhost:%[3]d; }
    location /variable/ {
        set $name api.test;
        proxy_pass http://$name:%[3]d;
    }
}
`, addr, dns.Addr, p), addr)
	get := func(path string) string {
		t.Helper()
		r := send(t, http.MethodGet, srv.URL()+path, "")
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: status %d", path, r.Status)
		}
		return r.Body
	}
	if got := get("/variable/x"); got != "first" {
		t.Errorf("variable, while DNS says 127.0.0.1: reached %q, want first", got)
	}
	dns.set("api.test", "127.0.0.2")
	// Past valid=1s: nginx keeps an answer while its expiry, in whole
	// seconds of ngx_time(), is not before now (ngx_resolver.c,
	// ngx_resolve_name_locked: rn->valid >= ngx_time()), so an answer
	// given late in a second lives up to 2 s.
	time.Sleep(2500 * time.Millisecond)
	if got := get("/variable/x"); got != "second" {
		t.Errorf("variable, after DNS moved api.test to 127.0.0.2: reached %q, want second", got)
	}
	for range 3 {
		if got := get("/block/x"); got != "first" {
			t.Errorf("upstream block: reached %q, want first (the address from start), whatever DNS says", got)
		}
		if got := get("/literal/x"); got != "first" {
			t.Errorf("literal proxy_pass: reached %q, want first (the address from start), whatever DNS says", got)
		}
	}
	if n := dns.queries("localhost"); n != 0 {
		t.Errorf("nginx asked the resolver for localhost %d times, want 0: names in upstreams are resolved by the system, at start", n)
	}
	if n := dns.queries("api.test"); n < 2 {
		t.Errorf("nginx asked the resolver for api.test %d times, want 2 or more (once per expired answer)", n)
	}
}

// The resolve parameter that makes nginx look an upstream server's name up
// while it runs came in nginx 1.27.3 (N:docs/xml/nginx/changes.xml:1632):
// nginx 1.22 refuses it, so for Debian 12's nginx the fix is a variable
// with a resolver.
func TestResolveParameterNeedsNginx1273(t *testing.T) {
	t.Parallel()
	res := nginxtest.Check(t, nginxtest.HTTPConf(`
resolver 127.0.0.1;
upstream u {
    zone u 64k;
    server localhost:8080 resolve;
}
`))
	if res.OK || !strings.Contains(res.Stderr, `invalid parameter "resolve"`) {
		t.Errorf("nginx -t accepted \"server ... resolve\" or gave another reason: ok %v\n%s", res.OK, res.Stderr)
	}
}
