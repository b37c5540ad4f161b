package kube

import (
	"math"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

func in(line, col int) model.Pos {
	return model.Pos{File: "testdata/ingress.yaml", Line: int32(line), Col: int32(col)}
}

func TestIngressNginx(t *testing.T) {
	res := load(t, "testdata/ingress.yaml", model.Target{})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != CodeInvalid || res.Diagnostics[0].Pos != in(19, 53) {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	if res.Read["Ingress"] != 1 || res.Read["ConfigMap"] != 1 || len(res.Proxies) != 1 {
		t.Fatalf("read %v, %d proxies", res.Read, len(res.Proxies))
	}
	p := res.Proxies[0]
	if p.Product != model.IngressNginx || p.Target != (model.Target{Product: model.IngressNginx}) {
		t.Errorf("product %v target %v", p.Product, p.Target)
	}
	r := p.Routes()[0]
	if r.Name != "Ingress api api.example.com/v1" || r.Pos != in(25, 9) || r.Match.Kind != model.MatchExact || r.Kind != "location" {
		t.Errorf("route %q at %v, %+v", r.Name, r.Pos, r.Match)
	}
	// The annotation beats the ConfigMap, which beats the default; an
	// invalid annotation leaves the default.
	check(t, "read", r.AttemptTimeout, 30*time.Second, "nginx.ingress.kubernetes.io/proxy-read-timeout", in(17, 53), false)
	check(t, "attempt", r.AttemptTimeout, 30*time.Second, "nginx.ingress.kubernetes.io/proxy-read-timeout", in(17, 53), false)
	check(t, "connect", r.ConnectTimeout, 2*time.Second, "nginx.ingress.kubernetes.io/proxy-connect-timeout", in(18, 56), false)
	check(t, "send", r.Nginx.SendTimeout, 60*time.Second, "proxy-send-timeout", in(25, 9), true)
	check(t, "budget", r.Budget, 0, "proxy-next-upstream-timeout", in(25, 9), true)
	check(t, "retry on", r.Retry.On, []string{"error", "timeout"}, "proxy-next-upstream", in(25, 9), true)
	// Tries 0: the Lua balancer adds a try on every pick, nothing caps them.
	check(t, "max attempts", r.MaxAttempts, math.MaxInt32, "ConfigMap proxy-next-upstream-tries", in(7, 30), false)
	if len(r.Reexecutes) != 2 || r.Reexecutes[1].Condition != "timeout" || !r.Reexecutes[1].Timeout || r.Reexecutes[0].Methods.Allows("POST") || !r.Reexecutes[0].Methods.Allows("PUT") {
		t.Errorf("reexecutes %+v", r.Reexecutes)
	}
	u := r.Forward.Upstream
	if u.Name != "web-api-8080" || r.Forward.URL != "api:8080" {
		t.Errorf("upstream %q, url %q", u.Name, r.Forward.URL)
	}
	check(t, "pool idle", u.PoolIdle, 75*time.Second, "ConfigMap upstream-keepalive-timeout", in(8, 31), false)
	check(t, "pool size", u.PoolSize, 0, "ConfigMap upstream-keepalive-connections", in(9, 35), false)
	check(t, "pool lifetime", u.PoolLifetime, time.Hour, "upstream-keepalive-time", in(25, 9), true)
	if r.Pool != nil {
		t.Errorf("keepalive 0 keeps no pool: %+v", r.Pool)
	}
}
