package proof

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/internal/nginxtest"
	"github.com/proxylint/proxylint/releases"
)

// written is the first directive of a change's Keep or Adopt text, as the
// release table writes it: "keepalive 32; (nginx before 1.29.7 ...)" is
// "keepalive 32;".
func written(s string) string {
	d, _, _ := strings.Cut(s, ";")
	return d + ";"
}

// TestUpgradeDefaultsWrittenOutPoolOnNginx122: what proxylint upgrade says
// nginx 1.29.7 changes for a location that proxies to an upstream block
// without keepalive, shown on nginx 1.22 with the directives the release
// table gives for the new defaults (releases.UpstreamKeepalive.Adopt,
// ProxyHTTPVersion.Adopt, ProxyConnectionHeader.Adopt). As 1.28 runs it,
// five sequential requests open five connections; with the three
// directives, one connection carries all five; with the pool alone, the
// HTTP/1.0 and "Connection: close" defaults still defeat it, which is why
// the report lists the three changes at the location. The part 1.22
// cannot show is "local" (the pool kept per location), which 1.29.7 adds
// and the source gives (ngx_http_upstream_keepalive_module.c:552-555 at
// release-1.29.7 and release-1.30.0; docs/semantics.md §D).
func TestUpgradeDefaultsWrittenOutPoolOnNginx122(t *testing.T) {
	t.Parallel()
	pool := written(releases.UpstreamKeepalive.Adopt)
	version := written(releases.ProxyHTTPVersion.Adopt)
	conn := written(releases.ProxyConnectionHeader.Adopt)
	if pool != "keepalive 32;" || version != "proxy_http_version 1.1;" || conn != `proxy_set_header Connection "";` {
		t.Fatalf("the table's directives changed: %q %q %q", pool, version, conn)
	}
	upstream := func(extra string) string {
		return fmt.Sprintf("upstream app {\n    server BACKEND;\n    %s\n}", extra)
	}
	t.Run("1.28 defaults", func(t *testing.T) {
		t.Parallel()
		ports, conns := connectionsFor(t, upstream(""), `proxy_pass http://app;`)
		wantConnectionPerRequest(t, ports, conns)
	})
	t.Run("1.29.7 defaults written out", func(t *testing.T) {
		t.Parallel()
		ports, conns := connectionsFor(t, upstream(pool), "proxy_pass http://app;\n        "+version+"\n        "+conn)
		if conns != 1 || distinct(ports) != 1 {
			t.Errorf("%d sequential requests came on %d connections from ports %v, want 1 connection", sequentialRequests, conns, ports)
		}
	})
	t.Run("the pool alone", func(t *testing.T) {
		t.Parallel()
		ports, conns := connectionsFor(t, upstream(pool), `proxy_pass http://app;`)
		wantConnectionPerRequest(t, ports, conns)
	})
}

// TestKeepZeroRefusedBeforeUpgrade: what keeps the old behaviour after the
// upgrade, "keepalive 0;" (releases.UpstreamKeepalive.Keep), is refused by
// the releases before 1.29.7: it is written with the upgrade, not before.
func TestKeepZeroRefusedBeforeUpgrade(t *testing.T) {
	t.Parallel()
	keep := written(releases.UpstreamKeepalive.Keep)
	res := nginxtest.Check(t, nginxtest.HTTPConf(fmt.Sprintf("upstream app {\n    server 127.0.0.1:1;\n    %s\n}\n", keep)))
	if res.OK || !strings.Contains(res.Stderr, `invalid value "0" in "keepalive" directive`) {
		t.Errorf("nginx -t with %q: ok %v\n%s", keep, res.OK, res.Stderr)
	}
}
