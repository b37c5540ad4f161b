package upgrade

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/parsers/nginx"
	"github.com/proxylint/proxylint/releases"
	"github.com/proxylint/proxylint/rules"
)

// TestEveryChangeIsMatched: a change of the release table that no matcher
// finds in a configuration would never be reported by an upgrade.
func TestEveryChangeIsMatched(t *testing.T) {
	for _, c := range releases.All() {
		if matcherOf(c) == nil {
			t.Errorf("change %s: no way to find where it touches a configuration (add it to matchers or directiveChanges)", c.ID)
		}
		if directiveChanges[c] && matchers[c] != nil {
			t.Errorf("change %s: found both by the directive walk and by a matcher", c.ID)
		}
	}
	for c := range matchers {
		if _, ok := releases.Lookup(c.ID); !ok {
			t.Errorf("matcher for %s, which the table does not hold", c.ID)
		}
	}
}

// compare loads files for the two targets as proxylint upgrade does and
// compares the runs.
func compare(t *testing.T, files map[string]string, from, to string) *Report {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for name, src := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		paths = append(paths, p)
	}
	sort.Strings(paths)
	f, err := model.ParseTarget(from)
	require.NoError(t, err)
	tt, err := model.ParseTarget(to)
	require.NoError(t, err)
	pair := Pair{From: f, To: tt}
	var mu sync.Mutex
	uses := map[string][]nginx.ReleaseUse{}
	side := func(tg model.Target, hook func(*nginx.Config, model.Target)) Side {
		m := load.Load(paths, load.Options{Targets: []model.Target{tg}, IncludeRoots: []string{dir}, NginxRead: hook})
		return Side{Model: m, Findings: rules.Run(m, &rules.Options{})}
	}
	fromSide := side(f, func(cfg *nginx.Config, _ model.Target) {
		u := cfg.ReleaseUses(f, tt)
		mu.Lock()
		uses[cfg.Main.Path] = u
		mu.Unlock()
	})
	return Compare(Input{Pairs: []Pair{pair}, From: fromSide, To: side(tt, nil), Directives: uses})
}

// summary writes a report's changes and findings one a line, with file
// names only.
func summary(r *Report) []string {
	var out []string
	for _, c := range r.Changes {
		id := "tables"
		if c.Change != nil {
			id = c.Change.ID
		}
		s := fmt.Sprintf("%s %s:%d:%d %s", id, filepath.Base(c.Pos.File), c.Pos.Line, c.Pos.Col, c.What)
		if c.Note != "" {
			s += " | " + c.Note
		}
		out = append(out, s)
	}
	for _, f := range r.Appear {
		out = append(out, fmt.Sprintf("+%s %s:%d %v", f.Rule, filepath.Base(f.Pos.File), f.Pos.Line, f.With))
	}
	for _, f := range r.Disappear {
		out = append(out, fmt.Sprintf("-%s %s:%d %v", f.Rule, filepath.Base(f.Pos.File), f.Pos.Line, f.With))
	}
	return out
}

const pooledConf = `events {}
http {
    log_format timing '$request_time $upstream_response_time $upstream_status';
    access_log /var/log/nginx/access.log timing;
    upstream app {
        server 10.0.0.1:8000;
    }
    upstream rpc {
        server 10.0.0.2:50051;
    }
    upstream legacy {
        server 10.0.0.3:3031;
    }
    server {
        listen 80;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.0;
        }
        location /rpc/ {
            grpc_pass grpc://rpc;
        }
        location /legacy/ {
            uwsgi_pass legacy;
        }
        location /direct/ {
            proxy_pass http://10.0.0.9:8000;
            proxy_set_header Connection "";
        }
    }
}
`

// TestUpstreamKeepaliveTouchesLocations: each location that proxies to an
// upstream block without keepalive is where 1.29.7's pool applies, with
// what still defeats it there; an implicit upstream never pools, and a
// location that sets the header or the version is left out of that
// default.
func TestUpstreamKeepaliveTouchesLocations(t *testing.T) {
	r := compare(t, map[string]string{"nginx.conf": pooledConf}, "nginx:1.28", "nginx:1.30")
	got := summary(r)
	assert.Equal(t, []string{
		`nginx-upstream-keepalive nginx.conf:16:9 location / proxies to upstream "app" (line 5), which has no keepalive directive | proxy_http_version 1.0 here still defeats it`,
		`nginx-upstream-keepalive nginx.conf:20:9 location /rpc/ proxies to upstream "rpc" (line 8), which has no keepalive directive`,
		`nginx-upstream-keepalive nginx.conf:23:9 location /legacy/ proxies to upstream "legacy" (line 11), which has no keepalive directive | uwsgi_pass never reuses a connection: the pool stays empty`,
		`nginx-proxy-http-version nginx.conf:26:9 location /direct/: proxy_http_version is not set`,
		`nginx-proxy-connection-header nginx.conf:16:9 location /: no proxy_set_header sets Connection (it proxies to upstream "app")`,
		// The pool 1.30 keeps for "app" is defeated by the location's
		// own proxy_http_version 1.0: told there, in place of the
		// finding at the upstream block.
		`+upstream-no-keepalive nginx.conf:18 [nginx-upstream-keepalive]`,
		`-upstream-no-keepalive nginx.conf:5 [nginx-upstream-keepalive]`,
		`-upstream-no-keepalive nginx.conf:8 [nginx-upstream-keepalive]`,
	}, got)
}

// TestReplaced: a finding that appears at a place of one that disappears,
// of the same rule, is that finding told where the newer release has it.
func TestReplaced(t *testing.T) {
	r := compare(t, map[string]string{"nginx.conf": pooledConf}, "nginx:1.28", "nginx:1.30")
	require.Len(t, r.Appear, 1)
	require.NotNil(t, r.Appear[0].Replaces)
	assert.Equal(t, int32(5), r.Appear[0].Replaces.Pos.Line)
	assert.Same(t, &r.Appear[0].Finding, r.Disappear[0].Replaces)
	assert.Nil(t, r.Disappear[1].Replaces)
}

// TestNoUpstreamNothingAboutPools: a configuration that proxies nowhere
// gets nothing about pools or proxy defaults; only what it does touch.
func TestNoUpstreamNothingAboutPools(t *testing.T) {
	r := compare(t, map[string]string{"nginx.conf": `events {}
http {
    server {
        listen 80;
        add_header X-Frame-Options DENY;
        location / {
            root /srv/www;
        }
    }
}
`}, "nginx:1.28", "nginx:1.30")
	assert.Empty(t, summary(r))
	assert.True(t, r.Empty())
}

const incIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: web
  annotations:
    nginx.org/proxy-next-upstream: "error timeout"
    nginx.org/proxy-next-upstream-tries: "2"
spec:
  ingressClassName: nginx
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /api
        pathType: Prefix
        backend:
          service: {name: api, port: {number: 8080}}
`

// TestNginxIngressNextUpstream: the annotations 5.4.0 reads are where the
// upgrade from 5.3 changes the Ingress.
func TestNginxIngressNextUpstream(t *testing.T) {
	r := compare(t, map[string]string{"ing.yaml": incIngress}, "nginx-ingress:5.3", "nginx-ingress:5.4")
	assert.Equal(t, []string{
		// At the annotations' values, as the settings read them.
		"nginx-ingress-next-upstream ing.yaml:7:36 Ingress shop shop.example.com/api: nginx.org/proxy-next-upstream",
		"nginx-ingress-next-upstream ing.yaml:8:42 Ingress shop shop.example.com/api: nginx.org/proxy-next-upstream-tries",
		// Two tries with no time limit, now that they are read.
		"+retry-tries-unbounded ing.yaml:8 [nginx-ingress-next-upstream]",
		"-kube-ignored ing.yaml:7 []",
		"-kube-ignored ing.yaml:8 []",
	}, summary(r))
}

// TestIstioHTTPRouteRetry: from 1.25 istiod reads an HTTPRoute's retry
// stanza, which 1.24 ignored.
func TestIstioHTTPRouteRetry(t *testing.T) {
	r := compare(t, map[string]string{"route.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: orders
spec:
  rules:
  - backendRefs:
    - name: orders
      port: 8080
    retry:
      attempts: 0
`}, "istio:1.24", "istio:1.25")
	got := summary(r)
	require.NotEmpty(t, got)
	assert.Equal(t, `istio-httproute-retry route.yaml:10:5 HTTPRoute orders rules[0] has a retry stanza`, got[0])
	assert.Contains(t, got, "-kube-ignored route.yaml:10 [istio-httproute-retry]")
}

// TestEnvoyGatewayIdleTimeout: a ClientTrafficPolicy's idle timeout,
// which 1.0 does not have.
func TestEnvoyGatewayIdleTimeout(t *testing.T) {
	r := compare(t, map[string]string{"eg.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: public}]
  rules:
  - backendRefs: [{name: web, port: 8080}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: all}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: public}]
  timeout:
    http: {idleTimeout: 30s}
`}, "envoy-gateway:1.0.2", "envoy-gateway:1.1.0")
	got := summary(r)
	require.NotEmpty(t, got)
	assert.Equal(t, "envoy-gateway-client-idle-timeout eg.yaml:15:25 HTTPRoute web: timeout.http.idleTimeout 30s", got[0])
}

// TestEnvoyV2UpgradedTypes: a typed config of a v2-era type Envoy
// upgraded until 1.20 is refused from then on.
func TestEnvoyV2UpgradedTypes(t *testing.T) {
	r := compare(t, map[string]string{"envoy.yaml": `static_resources:
  clusters:
  - name: redis
    connect_timeout: 1s
    type: STATIC
    health_checks:
    - timeout: 1s
      interval: 5s
      unhealthy_threshold: 2
      healthy_threshold: 2
      custom_health_check:
        name: envoy.health_checkers.redis
        typed_config:
          "@type": type.googleapis.com/envoy.config.health_checker.redis.v2.Redis
          key: health
    load_assignment:
      cluster_name: redis
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 6379}}}
`}, "envoy:1.19", "envoy:1.20")
	got := summary(r)
	require.NotEmpty(t, got)
	assert.Equal(t, "envoy-v2-upgraded-types envoy.yaml:14:20 typed config type.googleapis.com/envoy.config.health_checker.redis.v2.Redis", got[0])
}

// TestMeaning: a finding that names its target differently under the
// two releases is the same finding; another message is another finding.
func TestMeaning(t *testing.T) {
	names := targetNames([]Pair{{From: model.Target{Product: model.Nginx, Version: model.Version{Major: 1, Minor: 28}},
		To: model.Target{Product: model.Nginx, Version: model.Version{Major: 1, Minor: 30}}}})
	at := model.Pos{File: "a.conf", Line: 3, Col: 5}
	a := rules.Finding{Rule: "r", Pos: at, Message: "x on nginx:1.28: y"}
	b := rules.Finding{Rule: "r", Pos: at, Message: "x on nginx:1.30: y"}
	c := rules.Finding{Rule: "r", Pos: at, Message: "x on nginx:1.30: z"}
	assert.Equal(t, meaning(a, names), meaning(b, names))
	assert.NotEqual(t, meaning(a, names), meaning(c, names))
	b.Rule = "s"
	assert.NotEqual(t, meaning(a, names), meaning(b, names))
}

// TestUpstreamResolve: an upstream server written with the resolve
// parameter is where the upgrade to nginx 1.27.3 changes the
// configuration, which the older release refuses.
func TestUpstreamResolve(t *testing.T) {
	r := compare(t, map[string]string{"nginx.conf": `events {}
http {
    resolver 10.0.0.53 valid=30s;
    upstream api {
        zone api 64k;
        server api.internal.example.com:8080 resolve;
    }
    server {
        listen 80;
        location / { proxy_pass http://api; }
    }
}
`}, "nginx:1.26", "nginx:1.28")
	assert.Contains(t, summary(r), `nginx-upstream-resolve nginx.conf:6:9 server api.internal.example.com:8080 resolve in api`)
}

// TestIstioRetryBudget: a DestinationRule's retryBudget, which istiod
// writes into the cluster from 1.27 and ignores before.
func TestIstioRetryBudget(t *testing.T) {
	r := compare(t, map[string]string{"dr.yaml": `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: orders
spec:
  host: orders
  trafficPolicy:
    retryBudget:
      percent: {value: 25}
`}, "istio:1.26", "istio:1.27")
	assert.Contains(t, summary(r), `istio-retry-budget dr.yaml:9:7 orders.default.svc.cluster.local: retryBudget percent 25, minRetryConcurrency 3 (default)`)
}
