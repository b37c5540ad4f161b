package envoy

import (
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

// connManagerOf builds one listener from a connection manager alone and
// returns what the builder kept of it.
func connManagerOf(t *testing.T, src string) (connManager, *model.Listener) {
	t.Helper()
	tree, _, err := readTree("hcm.yaml", []byte(src))
	if err != nil || len(tree) != 1 {
		t.Fatalf("%d documents, %v", len(tree), err)
	}
	m, probs, _ := decode(tree[0], messageType(nameConnectionManager))
	if len(probs) != 0 {
		t.Fatalf("problems %+v", probs)
	}
	p := &model.Proxy{Product: model.Envoy}
	b := &builder{file: "hcm.yaml", proxy: p, clusters: map[string]*model.Upstream{},
		routes: map[string]res{}, conn: map[*model.Listener]connManager{}}
	ln := &model.Listener{Proxy: p}
	b.hcm(ln, wrap(m.ProtoReflect(), &lookups{}), tree[0], tree[0])
	return b.conn[ln], ln
}

func TestConnManagerKeepsTheRDSName(t *testing.T) {
	cm, ln := connManagerOf(t, `stat_prefix: x
rds: {route_config_name: elsewhere, config_source: {ads: {}}}
`)
	if cm.routeConfig != "elsewhere" || len(ln.Routes) != 0 {
		t.Errorf("route config %q, %d routes", cm.routeConfig, len(ln.Routes))
	}
	at(t, "stream idle (default)", cm.streamIdle, 5*time.Minute, 1, 1, true)
}

func TestConnManagerInlineRoutesNameNoRDS(t *testing.T) {
	cm, ln := connManagerOf(t, `stat_prefix: x
stream_idle_timeout: 42s
route_config:
  name: local
  virtual_hosts:
  - name: all
    domains: ["*"]
    routes:
    - match: {prefix: /}
      route: {cluster: c}
`)
	if cm.routeConfig != "" || len(ln.Routes) != 1 {
		t.Fatalf("route config %q, %d routes", cm.routeConfig, len(ln.Routes))
	}
	at(t, "stream idle", cm.streamIdle, 42*time.Second, 2, 1, false)
	at(t, "route idle (the connection manager's)", ln.Routes[0].Envoy.IdleTimeout, 42*time.Second, 2, 1, false)
}
