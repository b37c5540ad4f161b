package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

const traefikRoute = "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: shop, namespace: shop}\nspec:\n  routes:\n" +
	"  - match: Host(`shop.example.com`) && PathPrefix(`/api`) && Method(`POST`)\n    kind: Rule\n    middlewares: [{name: retry}]\n" +
	"    services: [{name: api, port: 8080, serversTransport: api}]\n" +
	"  - match: PathPrefix(`/web`) || Method(`GET`)\n    kind: Rule\n    middlewares: [{name: gone}]\n    services: [{name: web, port: 80}]\n"

const traefikTransport = `apiVersion: traefik.io/v1alpha1
kind: ServersTransport
metadata: {name: api, namespace: shop}
spec:
  maxIdleConnsPerHost: -1
  forwardingTimeouts:
    dialTimeout: 5
    responseHeaderTimeout: 20s
`

func traefikRetry(retry string) string {
	return "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata: {name: retry, namespace: shop}\nspec:\n  retry:\n" + retry
}

// An IngressRoute's route: its rule's path and methods (none narrowed
// under "||"), the retry middleware it names, and the ServersTransport of
// its service; a middleware not in the run is a note.
func TestIngressRoute(t *testing.T) {
	res := Link([]*Manifest{
		Parse("ir.yaml", []byte(traefikRoute)),
		Parse("mw.yaml", []byte(traefikRetry("    attempts: 3\n    initialInterval: 100ms\n"))),
		Parse("st.yaml", []byte(traefikTransport)),
	}, Options{})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Pos != incAt("ir.yaml", 12, 26) ||
		res.Diagnostics[0].Message != "IngressRoute shop names Middleware gone, which is not in the input: a retry it may hold is not checked (lint it with the IngressRoute)" {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	if len(res.Proxies) != 1 || res.Proxies[0].Product != model.Traefik || res.Read["IngressRoute"] != 1 || res.Read["Middleware"] != 1 || res.Read["ServersTransport"] != 1 {
		t.Fatalf("proxies %v, read %v", res.Proxies, res.Read)
	}
	api, web := res.Proxies[0].Routes()[0], res.Proxies[0].Routes()[1]
	if api.Name != "IngressRoute shop routes[0] /api" || api.Nginx != nil || api.Envoy != nil || api.Methods.Any || api.Methods.Allowed[0] != "POST" {
		t.Errorf("route %q, methods %+v", api.Name, api.Methods)
	}
	if !web.Methods.Any || web.Match.Path != "/web" {
		t.Errorf("web methods %+v, match %+v", web.Methods, web.Match)
	}
	// Network errors only, before anything was written: three tries, none
	// of which runs the request twice.
	check(t, "attempts", api.MaxAttempts, 3, "retry.attempts", incAt("mw.yaml", 6, 15), false)
	check(t, "retry on", api.Retry.On, []string{"network-error"}, "retry", incAt("mw.yaml", 5, 3), false)
	if len(api.Reexecutes) != 0 {
		t.Errorf("reexecutes %+v", api.Reexecutes)
	}
	check(t, "connect", api.ConnectTimeout, 5*time.Second, "forwardingTimeouts.dialTimeout", incAt("st.yaml", 7, 18), false)
	check(t, "header", api.AttemptTimeout, 20*time.Second, "forwardingTimeouts.responseHeaderTimeout", incAt("st.yaml", 8, 28), false)
	if api.Pool != nil {
		t.Errorf("maxIdleConnsPerHost -1 reuses no connection: pool %+v", api.Pool)
	}
	check(t, "web header", web.AttemptTimeout, 0, "forwardingTimeouts.responseHeaderTimeout", incAt("ir.yaml", 10, 5), true)
	check(t, "web pool", web.Pool.Idle, 90*time.Second, "forwardingTimeouts.idleConnTimeout", incAt("ir.yaml", 13, 23), true)
	check(t, "web attempts", web.MaxAttempts, 1, "middlewares", incAt("ir.yaml", 10, 5), true)
	check(t, "client idle", web.Listener.IdleTimeout, 180*time.Second, "respondingTimeouts.idleTimeout", incAt("ir.yaml", 1, 1), true)
}

// What Traefik's retry middleware sends again, per release: from 3.7 the
// statuses listed, POST among them only with retryNonIdempotentMethod;
// before 3.7 those fields are pruned, a warning each; traefik.containo.us
// resources are read as Traefik 2.11 when no release is named, and not at
// all by Traefik 3.
func TestTraefikRetryReleases(t *testing.T) {
	status := "    attempts: 2\n    status: [\"500-599\"]\n    timeout: 10s\n"
	for _, c := range []struct {
		name, retry, group string
		target             model.Target
		post, put          bool // re-executed after the backend answered
		budget             time.Duration
		diags              []string
	}{
		{"3.7, status", status, "traefik.io", model.Target{}, false, true, 10 * time.Second, nil},
		{"3.7, non-idempotent too", status + "    retryNonIdempotentMethod: true\n", "traefik.io", model.Target{}, true, true, 10 * time.Second, nil},
		{"3.6", status, "traefik.io", model.Target{Product: model.Traefik, Version: model.Version{Major: 3, Minor: 6}}, false, false, 0, []string{
			"mw.yaml:7:5 kube-ignored retry.status is ignored: Traefik 3.6 does not have it (it does since 3.7.0), so the API server prunes it and the middleware retries network errors only",
			"mw.yaml:8:5 kube-ignored retry.timeout is ignored: Traefik 3.6 does not have it (it does since 3.7.0), so the API server prunes it and the middleware retries network errors only",
		}},
		{"containo.us, no release named", status, "traefik.containo.us", model.Target{}, false, false, 0, []string{
			"mw.yaml:7:5 kube-ignored retry.status is ignored: Traefik 2.11 does not have it (it does since 3.7.0), so the API server prunes it and the middleware retries network errors only",
			"mw.yaml:8:5 kube-ignored retry.timeout is ignored: Traefik 2.11 does not have it (it does since 3.7.0), so the API server prunes it and the middleware retries network errors only",
		}},
		{"containo.us, Traefik 3", status, "traefik.containo.us", model.Target{Product: model.Traefik, Version: model.Version{Major: 3, Minor: 7}}, false, false, 0, []string{
			"ir.yaml:1:13 kube-ignored IngressRoute shop is ignored: Traefik 3.7 does not read the API group traefik.containo.us (traefik.containo.us is read up to 2.11, traefik.io since 2.10)",
			"mw.yaml:1:13 kube-ignored Middleware retry is ignored: Traefik 3.7 does not read the API group traefik.containo.us (traefik.containo.us is read up to 2.11, traefik.io since 2.10)",
		}},
		{"no attempts", "    initialInterval: 1s\n", "traefik.io", model.Target{}, false, false, 0, []string{
			"mw.yaml:5:3 kube-invalid Middleware retry: retry.attempts must be 1 or more; Traefik refuses the middleware (\"incorrect (or empty) value for attempt\") and the routes that use it",
		}},
		{"nothing to retry on", "    attempts: 3\n    disableRetryOnNetworkError: true\n", "traefik.io", model.Target{}, false, false, 0, []string{
			"mw.yaml:7:33 kube-invalid Middleware retry: disableRetryOnNetworkError without status retries nothing; Traefik refuses the middleware (\"retry middleware requires at least HTTP status codes or retry on TCP\")",
		}},
	} {
		ir := strings.ReplaceAll(strings.SplitN(traefikRoute, "  - match: PathPrefix(`/web`)", 2)[0], "traefik.io", c.group)
		ir = strings.Replace(ir, ", serversTransport: api", "", 1)
		mw := strings.ReplaceAll(traefikRetry(c.retry), "traefik.io", c.group)
		ir = strings.Replace(ir, "Method(`POST`)", "Method(`POST`,`PUT`)", 1) // v2 syntax: two methods
		res := Link([]*Manifest{Parse("ir.yaml", []byte(ir)), Parse("mw.yaml", []byte(mw))}, Options{Target: c.target})
		var diags []string
		for _, d := range res.Diagnostics {
			diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
		}
		if strings.Join(diags, "\n") != strings.Join(c.diags, "\n") {
			t.Errorf("%s: diagnostics:\n%s\nwant:\n%s", c.name, strings.Join(diags, "\n"), strings.Join(c.diags, "\n"))
		}
		routes := res.Proxies[0].Routes()
		if len(routes) == 0 {
			continue
		}
		r := routes[0]
		post, put := false, false
		for _, x := range r.Reexecutes {
			post = post || x.Methods.Allows("POST")
			put = put || x.Methods.Allows("PUT")
			if !x.Response {
				t.Errorf("%s: %s re-executes without a response", c.name, x.Condition)
			}
		}
		if post != c.post || put != c.put || r.Budget.Value != c.budget {
			t.Errorf("%s: POST %v, PUT %v re-executed, budget %v", c.name, post, put, r.Budget)
		}
	}
}

// A Middleware in a run without an IngressRoute that names it is a note
// saying what is missing; an IngressRoute alone is read.
func TestTraefikAlone(t *testing.T) {
	res := LoadBytes("mw.yaml", []byte(traefikRetry("    attempts: 3\n")), Options{})
	if len(res.Proxies) != 0 || len(res.Idle) != 0 || len(res.Diagnostics) != 1 || res.Diagnostics[0].Severity != model.Note ||
		res.Diagnostics[0].Message != "mw.yaml: Middleware retry configures Traefik's routers, and no IngressRoute of the input names it: proxylint reads them with the IngressRoutes that use them (an Ingress's router.middlewares annotation and Traefik's static configuration are not read), so nothing here is linted" {
		t.Errorf("proxies %v, idle %v, diagnostics %v", res.Proxies, res.Idle, res.Diagnostics)
	}
	ir := LoadBytes("ir.yaml", []byte(strings.SplitN(traefikRoute, "    middlewares: [{name: retry}]\n", 2)[0]+"    services: [{name: api, port: 8080}]\n"), Options{})
	if len(ir.Proxies) != 1 || len(ir.Idle) != 0 || len(ir.Diagnostics) != 0 {
		t.Errorf("proxies %v, idle %v, diagnostics %v", ir.Proxies, ir.Idle, ir.Diagnostics)
	}
}

// The pool's size: Traefik's static default of 200 idle connections per
// host without a ServersTransport (cmd/configuration.go), Go's
// http.Transport default of 2 with one that does not set
// maxIdleConnsPerHost (the field is passed as 0).
func TestTraefikPoolSize(t *testing.T) {
	st := "apiVersion: traefik.io/v1alpha1\nkind: ServersTransport\nmetadata: {name: api, namespace: shop}\nspec:\n  forwardingTimeouts: {dialTimeout: 5s}\n"
	res := Link([]*Manifest{Parse("ir.yaml", []byte(traefikRoute)), Parse("mw.yaml", []byte(traefikRetry("    attempts: 2\n"))), Parse("st.yaml", []byte(st))}, Options{})
	api, web := res.Proxies[0].Routes()[0], res.Proxies[0].Routes()[1]
	check(t, "api pool", api.Pool.Size, 2, "maxIdleConnsPerHost", incAt("ir.yaml", 9, 23), true)
	check(t, "web pool", web.Pool.Size, 200, "maxIdleConnsPerHost", incAt("ir.yaml", 13, 23), true)
}

// A route to a TraefikService (weighted or mirrored services) is linted
// for its retries, and a note says its backends are not read.
func TestIngressRouteToTraefikService(t *testing.T) {
	src := "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: shop, namespace: shop}\nspec:\n  routes:\n" +
		"  - match: PathPrefix(`/`)\n    kind: Rule\n    services: [{name: canary, kind: TraefikService}]\n"
	res := Link([]*Manifest{Parse("ir.yaml", []byte(src))}, Options{})
	want := "ir.yaml:8:23 load-error IngressRoute shop routes[0] / forwards to TraefikService canary, which proxylint does not read (weighted and mirrored services): the route's retries are checked, not the backends behind it"
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
	}
	if strings.Join(diags, "\n") != want || len(res.Proxies) != 1 || res.Proxies[0].Routes()[0].Forward != nil {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(diags, "\n"), want)
	}
}

// The Host a Traefik route's requests carry: its rule's Host, which
// Traefik passes on unless the service sets passHostHeader: false
// (ingressroute.go v3.7.9:147-149); not known under "||".
func TestIngressRouteHost(t *testing.T) {
	route := func(match, extra string) string {
		return "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: shop, namespace: shop}\nspec:\n  routes:\n" +
			"  - match: '" + match + "'\n    kind: Rule\n    services: [{name: api, port: 80" + extra + "}]\n"
	}
	for _, c := range []struct{ match, extra, want string }{
		{"Host(`shop.example.com`) && PathPrefix(`/api`)", "", "shop.example.com"},
		{"Host(`shop.example.com`)", ", passHostHeader: false", ""},
		{"Host(`a.example.com`) || Host(`b.example.com`)", "", ""},
		{"PathPrefix(`/`)", "", ""},
		{"!Host(`a.example.com`)", "", ""},
	} {
		res := Link([]*Manifest{Parse("ir.yaml", []byte(route(c.match, c.extra)))}, Options{})
		if got := res.Proxies[0].Routes()[0].Host; got != c.want {
			t.Errorf("%s%s: host %q, want %q", c.match, c.extra, got, c.want)
		}
	}
}
