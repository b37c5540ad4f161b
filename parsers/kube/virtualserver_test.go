package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

const cafeVS = `apiVersion: k8s.nginx.org/v1
kind: VirtualServer
metadata:
  name: cafe
  namespace: shop
spec:
  host: cafe.example.com
  upstreams:
  - name: tea
    service: tea-svc
    port: 80
    read-timeout: 2m
    next-upstream: "error timeout http_503"
    keepalive: 16
  - name: tea-post
    service: tea-post-svc
    port: 80
  routes:
  - path: /tea
    matches:
    - conditions:
      - variable: $request_method
        value: POST
      action:
        pass: tea-post
    action:
      pass: tea
  - path: =/health
    action:
      return: {code: 200, body: ok}
`

const incConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: nginx-config
  namespace: nginx-ingress
data:
  proxy-connect-timeout: "5s"
  keepalive: "32"
`

// A VirtualServer's location takes each setting from its upstream, else
// the controller's ConfigMap, else the controller's default; the
// controller always writes proxy_next_upstream (error timeout), its
// timeout (0s) and tries (0). A match on $request_method takes the POSTs,
// so the route's own action carries every other method.
func TestVirtualServer(t *testing.T) {
	ms := []*Manifest{Parse("vs.yaml", []byte(cafeVS)), Parse("cm.yaml", []byte(incConfigMap))}
	res := Link(ms, Options{})
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || res.Read["VirtualServer"] != 1 || res.Read["ConfigMap"] != 1 {
		t.Fatalf("diagnostics %v, proxies %v, read %v", res.Diagnostics, res.Proxies, res.Read)
	}
	p := res.Proxies[0]
	if p.Product != model.NginxIngress || len(p.Listeners) != 1 || p.Listeners[0].Name != "VirtualServer cafe" {
		t.Fatalf("proxy %v %+v", p.Product, p.Listeners)
	}
	routes := p.Routes()
	if len(routes) != 3 {
		t.Fatalf("routes %d", len(routes))
	}
	post, tea, health := routes[0], routes[1], routes[2]
	if post.Name != "VirtualServer cafe /tea matches[0]" || post.Pos != incAt("vs.yaml", 21, 7) || !post.Methods.Allows("POST") || post.Methods.Allows("GET") {
		t.Errorf("match route %q at %v, methods %+v", post.Name, post.Pos, post.Methods)
	}
	if tea.Name != "VirtualServer cafe /tea" || tea.Methods.Allows("POST") || !tea.Methods.Allows("PUT") || tea.Match != (model.Match{Kind: model.MatchPrefix, Path: "/tea", CaseSensitive: true}) {
		t.Errorf("route %q, methods %+v, match %+v", tea.Name, tea.Methods, tea.Match)
	}
	if health.Forward != nil || health.Match.Kind != model.MatchExact || health.Match.Path != "/health" {
		t.Errorf("return route forward %v, match %+v", health.Forward, health.Match)
	}
	route := incAt("vs.yaml", 19, 5)
	check(t, "connect", tea.ConnectTimeout, 5*time.Second, "ConfigMap proxy-connect-timeout", incAt("cm.yaml", 7, 26), false)
	check(t, "read", tea.AttemptTimeout, 2*time.Minute, "read-timeout", incAt("vs.yaml", 12, 19), false)
	check(t, "send", tea.Nginx.SendTimeout, 60*time.Second, "proxy-send-timeout", route, true)
	check(t, "retry on", tea.Retry.On, []string{"error", "timeout", "http_503"}, "next-upstream", incAt("vs.yaml", 13, 20), false)
	check(t, "budget", tea.Budget, 0, "next-upstream-timeout", route, true)
	check(t, "tries", tea.Nginx.Tries, 0, "next-upstream-tries", route, true)
	check(t, "post retry on", post.Retry.On, []string{"error", "timeout"}, "next-upstream", incAt("vs.yaml", 21, 7), true)
	if send := tea.Nginx.SendTimeout; send.Note() != noteVSDefault || post.Retry.On.Note() != noteVSWritten {
		t.Errorf("notes %q, %q", send.Note(), post.Retry.On.Note())
	}
	u := tea.Forward.Upstream
	if u.Name != "vs_shop_cafe_tea" || tea.Forward.URL != "tea-svc:80" || len(u.Servers) != 1 || u.Servers[0].Service.Key() != "shop/tea-svc" {
		t.Errorf("upstream %q %+v, forward %q", u.Name, u.Servers, tea.Forward.URL)
	}
	check(t, "pool size", u.PoolSize, 16, "keepalive", incAt("vs.yaml", 14, 16), false)
	check(t, "post pool size", post.Forward.Upstream.PoolSize, 32, "ConfigMap keepalive", incAt("cm.yaml", 8, 14), false)
	if tea.Pool == nil || tea.Pool.Idle.Value != 60*time.Second {
		t.Errorf("pool %+v", tea.Pool)
	}
	// How many endpoints tea-svc has is not in the input: one try.
	if tea.MaxAttempts.Value != 1 || len(tea.Reexecutes) != 0 {
		t.Errorf("max attempts %+v, reexecutes %v", tea.MaxAttempts, tea.Reexecutes)
	}
}

// The endpoints of a Service whose Deployment says how many replicas it
// runs are nginx's servers: a retry goes to the next, and POST is kept
// back unless non_idempotent; tries explicit above one stand for as many
// endpoints when the run does not say; use-cluster-ip is one server.
func TestVirtualServerEndpoints(t *testing.T) {
	deploy := func(replicas string) string {
		s := "apiVersion: v1\nkind: Service\nmetadata: {name: tea-svc, namespace: shop}\nspec:\n  selector: {app: tea}\n  ports: [{port: 80}]\n" +
			"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: tea, namespace: shop}\nspec:\n"
		if replicas != "" {
			s += "  replicas: " + replicas + "\n"
		}
		return s + "  template:\n    metadata: {labels: {app: tea}}\n    spec: {containers: [{name: tea}]}\n"
	}
	for _, c := range []struct {
		name, vs, cluster string
		attempts          int
		reexec            []string
	}{
		{"three replicas", cafeVS, deploy("3"), 3, []string{"error", "timeout", "http_503"}},
		{"replicas not written", cafeVS, deploy(""), 1, nil},
		{"one replica", cafeVS, deploy("1"), 1, nil},
		{"tries below the replicas", strings.Replace(cafeVS, "    keepalive: 16\n", "    keepalive: 16\n    next-upstream-tries: 2\n", 1), deploy("3"), 2, []string{"error", "timeout", "http_503"}},
		{"tries and no workload", strings.Replace(cafeVS, "    keepalive: 16\n", "    keepalive: 16\n    next-upstream-tries: 4\n", 1), "", 4, []string{"error", "timeout", "http_503"}},
		{"cluster IP", strings.Replace(cafeVS, "    keepalive: 16\n", "    keepalive: 16\n    use-cluster-ip: true\n    next-upstream-tries: 4\n", 1), deploy("3"), 1, nil},
	} {
		files := []*Manifest{Parse("vs.yaml", []byte(c.vs))}
		if c.cluster != "" {
			files = append(files, Parse("cluster.yaml", []byte(c.cluster)))
		}
		res := Link(files, Options{})
		tea := res.Proxies[0].Routes()[1]
		var got []string
		for _, x := range tea.Reexecutes {
			got = append(got, x.Condition)
			if x.Methods.Allows("POST") || !x.Methods.Allows("PUT") {
				t.Errorf("%s: %s re-executes %+v", c.name, x.Condition, x.Methods)
			}
		}
		if tea.MaxAttempts.Value != c.attempts || strings.Join(got, " ") != strings.Join(c.reexec, " ") {
			t.Errorf("%s: max attempts %+v, reexecutes %v", c.name, tea.MaxAttempts, got)
		}
	}
}

// A VirtualServer route delegates to a VirtualServerRoute by name or by
// routeSelector, in another file; one whose VirtualServerRoute is not in
// the run, and a VirtualServerRoute no VirtualServer names, are notes; a
// subroute outside the route's path and an action naming no upstream are
// refused.
func TestVirtualServerRoutes(t *testing.T) {
	vs := `apiVersion: k8s.nginx.org/v1
kind: VirtualServer
metadata: {name: cafe, namespace: shop}
spec:
  host: cafe.example.com
  routes:
  - path: /coffee
    route: coffee
  - path: /tea
    routeSelector:
      matchLabels: {app: tea}
  - path: /juice
    route: other/juice
`
	vsrs := `apiVersion: k8s.nginx.org/v1
kind: VirtualServerRoute
metadata: {name: coffee, namespace: shop}
spec:
  host: cafe.example.com
  upstreams:
  - {name: coffee, service: coffee-svc, port: 80, connect-timeout: 3s}
  subroutes:
  - path: /coffee
    action: {pass: coffee}
  - path: /milk
    action: {pass: coffee}
  - path: /coffee/beans
    action: {pass: beans}
---
apiVersion: k8s.nginx.org/v1
kind: VirtualServerRoute
metadata:
  name: tea
  namespace: drinks
  labels: {app: tea}
spec:
  host: cafe.example.com
  upstreams:
  - {name: tea, service: tea-svc, port: 80}
  subroutes:
  - path: /tea
    action: {proxy: {upstream: tea}}
---
apiVersion: k8s.nginx.org/v1
kind: VirtualServerRoute
metadata: {name: lost, namespace: shop}
spec:
  host: other.example.com
`
	res := Link([]*Manifest{Parse("vs.yaml", []byte(vs)), Parse("vsr.yaml", []byte(vsrs))}, Options{})
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
	}
	want := []string{
		"vsr.yaml:11:11 kube-invalid VirtualServerRoute coffee: subroute path \"/milk\" does not start with \"/coffee\", the path of the VirtualServer route that delegates to it; NGINX Ingress Controller refuses the VirtualServerRoute",
		"vsr.yaml:14:20 kube-invalid VirtualServerRoute coffee: action names upstream \"beans\", which its upstreams do not define; NGINX Ingress Controller refuses the resource",
		"vs.yaml:13:5 load-error VirtualServer cafe delegates /juice to VirtualServerRoute other/juice, which is not in the input: its locations are not checked (lint it with this VirtualServer)",
		"vsr.yaml:30:1 load-error VirtualServerRoute lost: no VirtualServer of the input delegates to it (host other.example.com), so its subroutes are not checked: lint it with the VirtualServer whose route names it",
	}
	if strings.Join(diags, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(diags, "\n"), strings.Join(want, "\n"))
	}
	var names []string
	for _, r := range res.Proxies[0].Routes() {
		names = append(names, r.Name)
	}
	if strings.Join(names, "; ") != "VirtualServer cafe VirtualServerRoute coffee /coffee; VirtualServer cafe VirtualServerRoute coffee /coffee/beans; VirtualServer cafe VirtualServerRoute tea /tea" {
		t.Errorf("routes %q", names)
	}
	coffee, tea := res.Proxies[0].Routes()[0], res.Proxies[0].Routes()[2]
	check(t, "coffee connect", coffee.ConnectTimeout, 3*time.Second, "connect-timeout", incAt("vsr.yaml", 7, 68), false)
	if coffee.Forward.Upstream.Name != "vs_shop_cafe_vsr_shop_coffee_coffee" || tea.Forward.Upstream.Name != "vs_shop_cafe_vsr_drinks_tea_tea" || tea.Forward.Upstream.Servers[0].Service.Key() != "drinks/tea-svc" {
		t.Errorf("upstreams %q, %q", coffee.Forward.Upstream.Name, tea.Forward.Upstream.Name)
	}
	if res.Read["VirtualServerRoute"] != 2 || len(res.Idle) != 0 {
		t.Errorf("read %v, idle %v", res.Read, res.Idle)
	}
}

// Since 5.5.0 several regex routes of a VirtualServer may delegate to
// one VirtualServerRoute, each subroute the location of the route whose
// path it is ("~ /x" is "~/x"), as NGINX Inc's sample
// vsr-multiple-regex-routes writes it. The controller refuses the
// VirtualServerRoute (no location of it is served) when a subroute is no
// route's path, two are one path, or a route's path has no subroute.
// Before 5.5.0 a regex route takes one subroute of its very path.
func TestVirtualServerRegexDelegation(t *testing.T) {
	vs := `apiVersion: k8s.nginx.org/v1
kind: VirtualServer
metadata: {name: api}
spec:
  host: api.example.com
  routes:
  - path: "~/api/v1"
    route: vsr-api
  - path: "~/api/v2"
    route: vsr-api
---
apiVersion: k8s.nginx.org/v1
kind: VirtualServerRoute
metadata: {name: vsr-api}
spec:
  host: api.example.com
  upstreams: [{name: api, service: api, port: 80}]
  subroutes:
`
	sub := func(path string) string { return "  - path: \"" + path + "\"\n    action: {pass: api}\n" }
	lint := func(target string, subs ...string) (diags, names []string) {
		var opts Options
		if target != "" {
			tg, err := model.ParseTarget(target)
			if err != nil {
				t.Fatal(err)
			}
			opts.Target = tg
		}
		res := Link([]*Manifest{Parse("vs.yaml", []byte(vs+strings.Join(subs, "")))}, opts)
		for _, d := range res.Diagnostics {
			diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
		}
		for _, r := range res.Proxies[0].Routes() {
			names = append(names, r.Name)
		}
		return diags, names
	}
	diags, names := lint("", sub("~/api/v1"), sub("~ /api/v2"))
	if len(diags) != 0 || strings.Join(names, "; ") != "VirtualServer api VirtualServerRoute vsr-api ~/api/v1; VirtualServer api VirtualServerRoute vsr-api ~ /api/v2" {
		t.Errorf("diagnostics %q, routes %q", diags, names)
	}
	for _, c := range []struct {
		subs []string
		want string
	}{
		{[]string{sub("~/api/v1"), sub("~/api/v2"), sub("~/api/v3")}, `vs.yaml:23:11 kube-invalid VirtualServerRoute vsr-api: subroute path "~/api/v3" is none of "~/api/v1", "~/api/v2", the paths of the VirtualServer routes that delegate to it; NGINX Ingress Controller refuses the VirtualServerRoute`},
		{[]string{sub("~/api/v1"), sub("~ /api/v1"), sub("~/api/v2")}, `vs.yaml:21:11 kube-invalid VirtualServerRoute vsr-api: subroute path "~ /api/v1" is "~/api/v1" again once normalised; NGINX Ingress Controller refuses the VirtualServerRoute`},
		{[]string{sub("~/api/v1")}, `vs.yaml:18:3 kube-invalid VirtualServerRoute vsr-api has no subroute of path "~/api/v2", which a VirtualServer route delegates to it; NGINX Ingress Controller refuses the VirtualServerRoute`},
	} {
		diags, names := lint("", c.subs...)
		if strings.Join(diags, "\n") != c.want || len(names) != 0 {
			t.Errorf("diagnostics:\n%s\nwant:\n%s\nroutes %q (want none)", strings.Join(diags, "\n"), c.want, names)
		}
	}
	diags, _ = lint("nginx-ingress:5.4.0", sub("~/api/v1"), sub("~ /api/v2"))
	if len(diags) == 0 || !strings.Contains(diags[0], `kube-invalid VirtualServerRoute vsr-api: subroute path "~ /api/v2" is not "~/api/v1", the path of the VirtualServer route that delegates to it`) {
		t.Errorf("5.4.0 diagnostics:\n%s", strings.Join(diags, "\n"))
	}
}

// A VirtualServer written by a program from NGINX Inc's Go types holds
// every field: "" and null for those it leaves unset, 0 for
// next-upstream-tries, a plain int the controller cannot tell from unset
// (pkg/apis/configuration/v1/types.go v5.5.4:152). All are the defaults:
// no diagnostic, and no finding for a count nobody chose.
func TestVirtualServerZeroValues(t *testing.T) {
	src := `apiVersion: k8s.nginx.org/v1
kind: VirtualServer
metadata: {name: app, namespace: p}
spec:
  host: app.example.com
  routes:
  - action: {pass: app, proxy: null, redirect: null, return: null}
    path: /
    route: ""
    splits: null
  upstreams:
  - buffering: null
    connect-timeout: ""
    keepalive: null
    max-fails: null
    name: app
    next-upstream: ""
    next-upstream-timeout: ""
    next-upstream-tries: 0
    port: 3000
    read-timeout: ""
    service: app
    use-cluster-ip: false
`
	res := Link([]*Manifest{Parse("vs.yaml", []byte(src))}, Options{})
	for _, d := range res.Diagnostics {
		t.Errorf("diagnostic %s %s %s", d.Pos, d.Code, d.Message)
	}
	r := res.Proxies[0].Routes()[0]
	route := incAt("vs.yaml", 7, 5)
	check(t, "retry on", r.Retry.On, []string{"error", "timeout"}, "next-upstream", route, true)
	check(t, "tries", r.Nginx.Tries, 0, "next-upstream-tries", route, true)
	check(t, "read", r.AttemptTimeout, 60*time.Second, "proxy-read-timeout", route, true)
}
