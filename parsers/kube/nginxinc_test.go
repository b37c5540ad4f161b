package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

const incIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: web
  annotations:
    nginx.org/proxy-read-timeout: "30s"
    nginx.org/proxy-next-upstream: "error timeout non_idempotent"
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

func incAt(file string, line, col int) model.Pos {
	return model.Pos{File: file, Line: int32(line), Col: int32(col)}
}

// An Ingress of class nginx with NGINX Inc's annotations is NGINX Ingress
// Controller's: its defaults (60s timeouts, nginx's retry defaults), no
// upstream pool unless keepalive is set, and one server per endpoint.
func TestNginxIncIngress(t *testing.T) {
	res := LoadBytes("ing.yaml", []byte(incIngress), Options{})
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || res.Read["Ingress"] != 1 {
		t.Fatalf("diagnostics %v, proxies %v, read %v", res.Diagnostics, res.Proxies, res.Read)
	}
	p := res.Proxies[0]
	if p.Product != model.NginxIngress || p.Target != (model.Target{Product: model.NginxIngress}) {
		t.Fatalf("product %v, target %v", p.Product, p.Target)
	}
	r := p.Routes()[0]
	path := incAt("ing.yaml", 15, 9)
	if r.Name != "Ingress shop shop.example.com/api" || r.Pos != path || r.Nginx == nil {
		t.Errorf("route %q at %v", r.Name, r.Pos)
	}
	check(t, "connect", r.ConnectTimeout, 60*time.Second, "proxy-connect-timeout", path, true)
	check(t, "read", r.AttemptTimeout, 30*time.Second, "nginx.org/proxy-read-timeout", incAt("ing.yaml", 7, 35), false)
	check(t, "send", r.Nginx.SendTimeout, 60*time.Second, "proxy-send-timeout", path, true)
	check(t, "retry on", r.Retry.On, []string{"error", "timeout", "non_idempotent"}, "nginx.org/proxy-next-upstream", incAt("ing.yaml", 8, 36), false)
	check(t, "budget", r.Budget, 0, "proxy-next-upstream-timeout", path, true)
	check(t, "tries", r.Nginx.Tries, 0, "proxy-next-upstream-tries", path, true)
	if r.ConnectTimeout.Note() != noteNginxIncDefault || r.Budget.Note() != noteNginxIncNginx {
		t.Errorf("notes %q, %q", r.ConnectTimeout.Note(), r.Budget.Note())
	}
	// One server per endpoint, how many is not in the manifests.
	if r.MaxAttempts.Value != 1 || r.MaxAttempts.Note() != noteNginxIncPeers || len(r.Reexecutes) != 0 {
		t.Errorf("max attempts %+v, reexecutes %v", r.MaxAttempts, r.Reexecutes)
	}
	u := r.Forward.Upstream
	if u.Name != "web-shop-shop.example.com-api-8080" || len(u.Servers) != 1 || u.Servers[0].Service == nil || u.Servers[0].Service.Key() != "web/api" {
		t.Errorf("upstream %q, servers %+v", u.Name, u.Servers)
	}
	check(t, "pool size", u.PoolSize, 0, "keepalive", path, true)
	if r.Pool != nil {
		t.Errorf("no keepalive, no pool: %+v", r.Pool)
	}
}

// The controller an Ingress goes to: its IngressClass in the run decides
// (in another manifest too), the default class takes the Ingresses that
// name none, and without one NGINX Inc's annotations or the target do.
func TestIngressControllers(t *testing.T) {
	plain := strings.ReplaceAll(strings.ReplaceAll(incIngress, "    nginx.org/proxy-read-timeout: \"30s\"\n", ""),
		"    nginx.org/proxy-next-upstream: \"error timeout non_idempotent\"\n", "")
	plain = strings.Replace(plain, "  annotations:\n", "", 1)
	noClass := strings.Replace(plain, "  ingressClassName: nginx\n", "", 1)
	class := func(name, controller, dflt string) string {
		s := "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: " + name + "\n"
		if dflt != "" {
			s += "  annotations:\n    ingressclass.kubernetes.io/is-default-class: \"" + dflt + "\"\n"
		}
		return s + "spec:\n  controller: " + controller + "\n"
	}
	for _, c := range []struct {
		name   string
		files  []string
		target model.Target
		want   model.Product // "" when no proxy
	}{
		{"class nginx, no annotations", []string{plain}, model.Target{}, model.IngressNginx},
		{"class nginx, nginx.org annotations", []string{incIngress}, model.Target{}, model.NginxIngress},
		{"the target names NGINX Inc's", []string{plain}, model.Target{Product: model.NginxIngress}, model.NginxIngress},
		{"NGINX Inc's IngressClass in another file", []string{plain, class("nginx", "nginx.org/ingress-controller", "")}, model.Target{}, model.NginxIngress},
		{"ingress-nginx's IngressClass wins over annotations", []string{incIngress, class("nginx", "k8s.io/ingress-nginx", "")}, model.Target{}, model.IngressNginx},
		{"the default class", []string{noClass, class("public", "nginx.org/ingress-controller", "true")}, model.Target{}, model.NginxIngress},
		{"a class another controller's IngressClass names", []string{plain, class("nginx", "traefik.io/ingress-controller", "")}, model.Target{}, ""},
	} {
		var ms []*Manifest
		for i, src := range c.files {
			ms = append(ms, Parse(string(rune('a'+i))+".yaml", []byte(src)))
		}
		res := Link(ms, Options{Target: c.target})
		var got model.Product
		if len(res.Proxies) > 0 {
			got = res.Proxies[0].Product
		}
		if len(res.Proxies) > 1 || got != c.want {
			t.Errorf("%s: proxies %v, want %q", c.name, res.Proxies, c.want)
		}
		if c.want == "" && (len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, `names ingress class "nginx"`)) {
			t.Errorf("%s: diagnostics %v", c.name, res.Diagnostics)
		}
	}
}

// The ConfigMap's keepalive gives the upstream a pool, with nginx's idle
// timeout and lifetime; NGINX Inc's ConfigMap is told from
// ingress-nginx's by its name, and one in another manifest applies.
func TestNginxIncConfigMap(t *testing.T) {
	cm := func(name, keepalive string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: nginx-ingress\ndata:\n  keepalive: \"" + keepalive + "\"\n  proxy-connect-timeout: 5s\n"
	}
	res := Link([]*Manifest{
		Parse("cm-other.yaml", []byte(cm("ingress-nginx-controller", "99"))),
		Parse("cm.yaml", []byte(cm("nginx-config", "16"))),
		Parse("ing.yaml", []byte(incIngress)),
	}, Options{})
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || res.Read["ConfigMap"] != 1 {
		t.Fatalf("diagnostics %v, proxies %v, read %v", res.Diagnostics, res.Proxies, res.Read)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "connect", r.ConnectTimeout, 5*time.Second, "ConfigMap proxy-connect-timeout", incAt("cm.yaml", 8, 26), false)
	u := r.Forward.Upstream
	check(t, "pool size", u.PoolSize, 16, "ConfigMap keepalive", incAt("cm.yaml", 7, 14), false)
	if r.Pool == nil || r.Pool.Idle.Value != time.Minute || !r.Pool.Idle.Default() || r.Pool.Lifetime.Value != time.Hour {
		t.Errorf("pool %+v", r.Pool)
	}
	if len(res.Idle) != 1 || res.Idle[0].Path != "cm-other.yaml" {
		t.Errorf("idle %+v, want ingress-nginx's ConfigMap", res.Idle)
	}
	if got := res.Proxies[0].Sources; len(got) != 2 || got[0] != "cm.yaml" || got[1] != "ing.yaml" {
		t.Errorf("sources %v", got)
	}
}

// NGINX Ingress Controller reads its proxy-next-upstream annotations only
// since 5.4.0: for an older target they are ignored, and nginx's
// defaults apply.
func TestNginxIncNextUpstreamBefore54(t *testing.T) {
	res := LoadBytes("ing.yaml", []byte(incIngress), Options{Target: model.Target{Product: model.NginxIngress, Version: model.Version{Major: 5, Minor: 3}}})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != CodeIgnored || res.Diagnostics[0].Pos != incAt("ing.yaml", 8, 5) ||
		res.Diagnostics[0].Message != "nginx.org/proxy-next-upstream is ignored: NGINX Ingress Controller 5.3 does not read it (it does since 5.4.0), so nginx's default applies" {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "retry on", r.Retry.On, []string{"error", "timeout"}, "proxy-next-upstream", incAt("ing.yaml", 15, 9), true)
}

// nginx.org/grpc-services makes the Service's locations gRPC ones only
// when the ConfigMap sets http2: "true"; otherwise the controller ignores
// the annotation, and says so once per Ingress.
func TestNginxIncGRPCServices(t *testing.T) {
	ing := strings.Replace(incIngress, "    nginx.org/proxy-read-timeout: \"30s\"\n", "    nginx.org/grpc-services: \"api\"\n", 1)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nginx-config}\ndata:\n  http2: \"true\"\n"
	res := link(Options{}, "cm.yaml", cm, "ing.yaml", ing)
	r := res.Proxies[0].Routes()[0]
	if len(res.Diagnostics) != 0 || r.Forward.Module != "grpc" || !r.Stream.Value {
		t.Errorf("with http2: diagnostics %v, module %q, stream %v", res.Diagnostics, r.Forward.Module, r.Stream)
	}
	res = LoadBytes("ing.yaml", []byte(ing), Options{})
	r = res.Proxies[0].Routes()[0]
	want := `nginx.org/grpc-services is ignored: NGINX Ingress Controller reads it only when its ConfigMap sets http2: "true", so api is proxied as HTTP/1.1, not gRPC`
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Message != want || res.Diagnostics[0].Pos != incAt("ing.yaml", 7, 5) || r.Forward.Module != "proxy" || r.Stream.Valid() {
		t.Errorf("without http2: diagnostics %v, module %q", res.Diagnostics, r.Forward.Module)
	}
}

// NGINX Inc's mergeable Ingresses: a minion takes the master's timeouts
// and keepalive for its host when it does not set them (the master in
// another file), but not proxy-next-upstream; a minion whose master is not
// in the run is a note. use-cluster-ip makes the Service's cluster IP the
// one server.
func TestNginxIncMergeable(t *testing.T) {
	master := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop-master
  namespace: web
  annotations:
    nginx.org/mergeable-ingress-type: master
    nginx.org/proxy-read-timeout: "300s"
    nginx.org/keepalive: "8"
    nginx.org/proxy-next-upstream: "error timeout non_idempotent"
spec:
  ingressClassName: nginx
  rules:
  - host: shop.example.com
`
	minion := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop-api
  namespace: web
  annotations:
    nginx.org/mergeable-ingress-type: minion
    nginx.org/proxy-connect-timeout: "5s"
    nginx.org/use-cluster-ip: "true"
    nginx.org/proxy-next-upstream-tries: "3"
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
	res := Link([]*Manifest{Parse("master.yaml", []byte(master)), Parse("minion.yaml", []byte(minion))}, Options{})
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 {
		t.Fatalf("diagnostics %v, proxies %v", res.Diagnostics, res.Proxies)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "read", r.AttemptTimeout, 300*time.Second, "nginx.org/proxy-read-timeout", incAt("master.yaml", 8, 35), false)
	check(t, "connect", r.ConnectTimeout, 5*time.Second, "nginx.org/proxy-connect-timeout", incAt("minion.yaml", 8, 38), false)
	check(t, "pool", r.Forward.Upstream.PoolSize, 8, "nginx.org/keepalive", incAt("master.yaml", 9, 26), false)
	check(t, "retry on", r.Retry.On, []string{"error", "timeout"}, "proxy-next-upstream", incAt("minion.yaml", 17, 9), true)
	// The cluster IP is one server: no next one to retry on, whatever the tries.
	if n, exact := r.Forward.Upstream.Peers(); n != 1 || !exact || r.MaxAttempts.Value != 1 {
		t.Errorf("peers %d (exact %v), max attempts %+v", n, exact, r.MaxAttempts)
	}
	alone := Link([]*Manifest{Parse("minion.yaml", []byte(minion))}, Options{})
	if len(alone.Diagnostics) != 1 || alone.Diagnostics[0].Pos != incAt("minion.yaml", 7, 39) ||
		!strings.Contains(alone.Diagnostics[0].Message, "Ingress shop-api is a minion of host shop.example.com, whose master Ingress is not in the input") {
		t.Errorf("diagnostics %v", alone.Diagnostics)
	}
}
