package proof

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSSLOnRunsOnNginx122: "ssl on", which nginx removed in 1.25.1, is
// only deprecated on the older releases that the default target range
// holds: nginx 1.22 warns and serves TLS through the server. What the rest
// of such a configuration does is therefore what those releases do with
// it, and proxylint lints it for them (parsers/nginx/check.go,
// RefusedFrom): here the upstream without keepalive opens a connection
// for every request, as upstream-no-keepalive says of such a file.
func TestSSLOnRunsOnNginx122(t *testing.T) {
	t.Parallel()
	cert, key := selfSigned(t)
	be := newBackend(t)
	addr := freeAddr(t)
	srv := startNginx(t, fmt.Sprintf(`
upstream app { server %s; }
server {
    listen %s;
    ssl on;
    ssl_certificate %s;
    ssl_certificate_key %s;
    location / {
        proxy_pass http://app;
    }
}
`, be.Addr, addr, cert, key), addr)

	c := &http.Client{Timeout: clientTimeout, Transport: &http.Transport{
		DisableKeepAlives: true, Proxy: nil,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test's own certificate
	}}
	for i := range sequentialRequests {
		req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Request-Id", fmt.Sprintf("tls-%d", i))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("GET over TLS through \"ssl on\": %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.TLS == nil {
			t.Fatalf("request %d: status %d (TLS %v), want 200 over TLS", i, resp.StatusCode, resp.TLS != nil)
		}
	}
	if log := srv.ErrorLog() + srv.Output(); !strings.Contains(log, `the "ssl" directive is deprecated`) {
		t.Errorf("nginx did not warn that \"ssl\" is deprecated:\n%s", log)
	}
	if n := len(be.Conns()); n != sequentialRequests {
		t.Errorf("the backend accepted %d connections for %d requests, want one each (no keepalive)", n, sequentialRequests)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key into the
// test's directory and returns their paths.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}
