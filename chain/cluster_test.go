package chain_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
)

// describe writes files into one directory, loads the directory and
// lists each path as its step names, with notes and pool idle timeouts.
func describe(t *testing.T, files map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	m := analyzed([]string{dir}, load.Options{})
	for _, d := range m.Diagnostics {
		require.Falsef(t, d.Fatal, "%s", d.Error())
	}
	var out []string
	for _, p := range chain.Describe(m.Model, m.Chain) {
		var names []string
		for _, s := range p.Steps {
			n := strings.ReplaceAll(s.Name, filepath.ToSlash(dir)+"/", "")
			if s.PoolIdle.Valid() && s.Kind == model.HopService {
				n += " (pool " + s.PoolIdle.Value.String() + " " + s.PoolIdle.Name() + ")"
			}
			if s.Note != "" {
				n += " (" + s.Note + ")"
			}
			names = append(names, n)
		}
		out = append(out, strings.Join(names, " | "))
	}
	return out
}

const shopService = `apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  selector: {app: api}
  ports:
  - {name: http, port: 80, targetPort: web}
---
apiVersion: v1
kind: Service
metadata: {name: legacy, namespace: shop}
spec:
  ports:
  - {port: 80}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  template:
    metadata:
      labels: {app: api, tier: web}
    spec:
      containers:
      - name: api
        ports:
        - {name: http, containerPort: 8000}
`

// An nginx upstream that names a Service by its cluster DNS name reaches
// it as an Ingress backend does; a targetPort name the pods do not have,
// and a Service without a selector, are told.
func TestClusterDNSNameReachesTheService(t *testing.T) {
	conf := `events {}
http {
    upstream api { server api.shop.svc.cluster.local:80; keepalive 8; }
    server {
        listen 80;
        location /api/ { proxy_pass http://api; }
        location /old/ { proxy_pass http://legacy.shop.svc:80; }
    }
}
`
	got := describe(t, map[string]string{"nginx.conf": conf, "shop.yaml": shopService})
	assert.Equal(t, []string{
		"nginx nginx.conf location /api/ | Service shop/api:80 | Deployment shop/api (has no container port named \"web\", the Service's targetPort)",
		"nginx nginx.conf location /old/ | Service shop/legacy:80 (has no selector (its endpoints are kept by hand): the path ends here)",
	}, got)
}

// An Ingress to a Service whose host a DestinationRule configures: the
// Service hop shows the pool every meshed client keeps to it.
func TestServiceHopShowsTheMeshPool(t *testing.T) {
	ingress := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  rules:
  - http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: api, port: {name: http}}}
`
	dr := `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: api, namespace: shop}
spec:
  host: api
  trafficPolicy:
    connectionPool:
      http: {idleTimeout: 45s}
`
	svc := strings.Replace(shopService, "targetPort: web", "targetPort: http", 1)
	got := describe(t, map[string]string{"ingress.yaml": ingress, "dr.yaml": dr, "shop.yaml": svc})
	assert.Equal(t, []string{
		"ingress-nginx ingress.yaml Ingress web / | Service shop/api:80 (pool 45s connectionPool.http.idleTimeout) | Deployment shop/api:8000",
	}, got)
}

// A Gateway API HTTPRoute is an entry of its own: its rule reaches the
// Service it names and the workload behind it.
func TestHTTPRouteReachesTheWorkload(t *testing.T) {
	route := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, namespace: shop}
spec:
  parentRefs: [{name: public}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /api}}]
    backendRefs: [{name: api, port: 80}]
`
	svc := strings.Replace(shopService, "targetPort: web", "targetPort: 8000", 1)
	got := describe(t, map[string]string{"route.yaml": route, "shop.yaml": svc})
	assert.Equal(t, []string{"istio route.yaml HTTPRoute api rules[0] | Service shop/api:80 | Deployment shop/api:8000"}, got)
}
