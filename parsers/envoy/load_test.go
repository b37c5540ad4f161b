package envoy

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

// loadString loads src as the file name (the extension matters: .json is
// read as JSON first).
func loadString(t *testing.T, name, src string) Result {
	t.Helper()
	return LoadBytes(name, []byte(src), Options{})
}

// diagStrings renders diagnostics as "line:col code message" for
// comparisons.
func diagStrings(r Result) []string {
	var out []string
	for _, d := range r.Diagnostics {
		out = append(out, fmt.Sprintf("%d:%d %s %s", d.Pos.Line, d.Pos.Col, d.Code, d.Message))
	}
	return out
}

// wantDiag checks that a diagnostic of code at line:col contains substr.
func wantDiag(t *testing.T, r Result, line, col int, code model.Code, substr string) {
	t.Helper()
	_ = getDiag(t, r, line, col, code, substr)
}

// getDiag returns the diagnostic wantDiag looks for.
func getDiag(t *testing.T, r Result, line, col int, code model.Code, substr string) model.Diagnostic {
	t.Helper()
	for _, d := range r.Diagnostics {
		if int(d.Pos.Line) == line && int(d.Pos.Col) == col && d.Code == code && strings.Contains(d.Message, substr) {
			return d
		}
	}
	t.Fatalf("no %s at %d:%d containing %q; got:\n  %s", code, line, col, substr, strings.Join(diagStrings(r), "\n  "))
	return model.Diagnostic{}
}

func wantClean(t *testing.T, r Result) {
	t.Helper()
	for _, d := range r.Diagnostics {
		if d.Severity >= model.Warning {
			t.Fatalf("unexpected diagnostics:\n  %s", strings.Join(diagStrings(r), "\n  "))
		}
	}
}

func onlyProxy(t *testing.T, r Result) *model.Proxy {
	t.Helper()
	if len(r.Proxies) != 1 {
		t.Fatalf("got %d proxies, want 1; diagnostics:\n  %s", len(r.Proxies), strings.Join(diagStrings(r), "\n  "))
	}
	return r.Proxies[0]
}

// at checks a setting's value, position and default flag.
func at[T comparable](t *testing.T, what string, s model.Setting[T], value T, line, col int, def bool) {
	t.Helper()
	if !s.Valid() {
		t.Errorf("%s: not set", what)
		return
	}
	if s.Value != value || int(s.Pos().Line) != line || int(s.Pos().Col) != col || s.Default() != def {
		t.Errorf("%s = %v at %d:%d default=%v (name %q, level %q); want %v at %d:%d default=%v",
			what, s.Value, s.Pos().Line, s.Pos().Col, s.Default(), s.Name(), s.Level(), value, line, col, def)
	}
}

func TestBootstrapModel(t *testing.T) {
	src, err := os.ReadFile("testdata/bootstrap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := LoadBytes("bootstrap.yaml", src, Options{})
	wantClean(t, r)
	p := onlyProxy(t, r)
	if p.Product != model.Envoy || p.Target.Product != model.Envoy {
		t.Errorf("product %q target %v", p.Product, p.Target)
	}
	if len(p.Listeners) != 1 {
		t.Fatalf("got %d listeners, want 1", len(p.Listeners))
	}
	l := p.Listeners[0]
	if l.Name != "ingress_http" || l.Pos.Line != 27 || l.Pos.Col != 9 {
		t.Errorf("listener %q at %v", l.Name, l.Pos)
	}
	if len(l.Addresses) != 1 || l.Addresses[0].String() != "0.0.0.0:8080" || l.Addresses[0].Pos.Line != 22 {
		t.Errorf("addresses %v", l.Addresses)
	}
	at(t, "codec", l.Codec, "AUTO", 31, 11, false)
	at(t, "idle", l.IdleTimeout, 300*time.Second, 35, 13, false)
	at(t, "max_connection_duration", l.MaxConnectionDuration, 60*time.Second, 36, 13, false)
	at(t, "http1_safe", l.H1SafeMaxConnectionDuration, false, 28, 9, true)
	at(t, "drain", l.DrainTimeout, 10*time.Second, 45, 11, false)
	at(t, "delayed_close", l.DelayedCloseTimeout, time.Second, 28, 9, true)
	at(t, "request_timeout", l.RequestTimeout, 30*time.Second, 43, 11, false)
	if l.MaxConnectionDuration.Level() != "hcm" || l.MaxConnectionDuration.Name() != "max_connection_duration" {
		t.Errorf("max_connection_duration level %q name %q", l.MaxConnectionDuration.Level(), l.MaxConnectionDuration.Name())
	}
	if l.DelayedCloseTimeout.Name() != "delayed_close_timeout" {
		t.Errorf("default name %q", l.DelayedCloseTimeout.Name())
	}

	routes := l.Routes
	if len(routes) != 6 {
		t.Fatalf("got %d routes, want 6", len(routes))
	}
	orders := routes[0]
	if orders.Name != "route /api/orders" || orders.Pos.Line != 103 || orders.Match.Kind != model.MatchPrefix {
		t.Errorf("route 0: %q at %v kind %q", orders.Name, orders.Pos, orders.Match.Kind)
	}
	at(t, "orders timeout", orders.Envoy.Timeout, 10*time.Second, 107, 19, false)
	at(t, "orders idle (from the HCM)", orders.Envoy.IdleTimeout, 120*time.Second, 42, 11, false)
	at(t, "orders retry_on", onList(orders.Retry.On), "5xx,reset", 109, 21, false)
	at(t, "orders num_retries", orders.Envoy.NumRetries, 3, 110, 21, false)
	at(t, "orders per_try", orders.Envoy.PerTryTimeout, 3*time.Second, 111, 21, false)
	if orders.Retry.On.Level() != "route" || orders.Envoy.NumRetries.Name() != "retry_policy.num_retries" {
		t.Errorf("retry level %q name %q", orders.Retry.On.Level(), orders.Envoy.NumRetries.Name())
	}
	if !orders.Methods.Any || orders.Envoy.RetriableMethods != nil {
		t.Errorf("orders methods %+v retriable %+v", orders.Methods, orders.Envoy.RetriableMethods)
	}
	if orders.Forward == nil || orders.Forward.Module != "envoy" || orders.Forward.URL != "orders" || orders.Forward.Pos.Line != 106 || orders.Forward.Upstream == nil {
		t.Fatalf("orders pass %+v", orders.Forward)
	}
	at(t, "orders connect timeout", orders.ConnectTimeout, 500*time.Millisecond, 173, 5, false)

	catalog := routes[1]
	if catalog.Methods.Any || strings.Join(catalog.Methods.Allowed, " ") != "GET HEAD" || catalog.Methods.Pos().Line != 118 {
		t.Errorf("catalog methods %+v", catalog.Methods)
	}
	at(t, "catalog idle", catalog.Envoy.IdleTimeout, 30*time.Second, 125, 19, false)

	search := routes[2]
	at(t, "search timeout", search.Envoy.Timeout, time.Duration(0), 134, 19, false)
	at(t, "search num_retries", search.Envoy.NumRetries, 5, 137, 21, false)
	at(t, "search per_try (unset)", search.Envoy.PerTryTimeout, time.Duration(0), 135, 19, true)

	// A route without a retry policy takes the virtual host's whole.
	api := routes[3]
	at(t, "api retry_on", onList(api.Retry.On), "connect-failure,refused-stream", 100, 17, false)
	at(t, "api num_retries", api.Envoy.NumRetries, 2, 101, 17, false)
	at(t, "api timeout (default)", api.Envoy.Timeout, 15*time.Second, 140, 17, true)
	if api.Retry.On.Level() != "virtual_host" {
		t.Errorf("api retry level %q", api.Retry.On.Level())
	}

	redirect := routes[4]
	if redirect.Forward != nil || redirect.Match.Kind != model.MatchExact {
		t.Errorf("redirect route %+v", redirect)
	}
	site := routes[5]
	at(t, "site num_retries (default)", site.Envoy.NumRetries, 1, 160, 19, true)
	if site.Envoy.RetriableMethods == nil || site.Envoy.RetriableMethods.Any || strings.Join(site.Envoy.RetriableMethods.Allowed, " ") != "GET" {
		t.Errorf("site retriable methods %+v", site.Envoy.RetriableMethods)
	}

	if len(p.Upstreams) != 3 {
		t.Fatalf("got %d upstreams", len(p.Upstreams))
	}
	o := p.Upstreams[0]
	if o.Name != "orders" || o.Pos.Line != 169 || o.Pos.Col != 5 || len(o.Routes) != 2 {
		t.Errorf("orders upstream %q at %v with %d routes", o.Name, o.Pos, len(o.Routes))
	}
	at(t, "orders idle", o.PoolIdle, 50*time.Second, 178, 11, false)
	at(t, "orders max duration (default)", o.PoolLifetime, time.Duration(0), 169, 5, true)
	if len(o.Servers) != 1 || o.Servers[0].Raw != "orders.internal:8000" || o.Servers[0].Literal || o.Servers[0].Pos.Line != 196 {
		t.Errorf("orders servers %+v", o.Servers)
	}
	c := p.Upstreams[1]
	at(t, "catalog idle (default)", c.PoolIdle, time.Hour, 198, 5, true)
	if len(c.Servers) != 2 || !c.Servers[1].Literal {
		t.Errorf("catalog servers %+v", c.Servers)
	}
	s := p.Upstreams[2]
	at(t, "static max duration", s.PoolLifetime, 600*time.Second, 235, 11, false)
}

// onList checks a list setting (retry_on) as its comma-joined text.
func onList(s model.Setting[[]string]) model.Setting[string] {
	return model.NewSetting(strings.Join(s.Value, ","), s.Name(), s.Level(), s.Pos(), s.Default(), "")
}
