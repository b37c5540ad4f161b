package upgrade

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
	"github.com/proxylint/proxylint/releases"
	"github.com/proxylint/proxylint/rules"
)

// scene is one configuration as the two runs read it, for one change.
type scene struct {
	change   *releases.Change
	from, to *model.Proxy
	// without is the run without the change, with the run with it (for a
	// Bug, the run with the bug).
	without, with *model.Proxy
	// gained is set when the upgrade brings the change.
	gained bool
	uses   []nginx.ReleaseUse
	files  []*model.File
}

// touch is one place a change touches: what it is, the other places
// involved, and what the change does there beyond its general After.
type touch struct {
	pos     model.Pos
	what    string
	related []rules.Related
	note    string
}

// matcher finds where a change touches a configuration.
type matcher func(s *scene) []touch

// matchers hold, for every change of the release table the directive
// walk does not find, how to find where it touches a configuration
// (TestEveryChangeIsMatched).
var matchers = map[*releases.Change]matcher{
	releases.UpstreamKeepalive:         upstreamKeepalive,
	releases.ProxyHTTPVersion:          proxyDefault(func(n *model.NginxRoute) model.Setting[string] { return n.HTTPVersion }, "proxy_http_version is not set"),
	releases.ProxyConnectionHeader:     proxyDefault(func(n *model.NginxRoute) model.Setting[string] { return n.ConnectionHeader }, "no proxy_set_header sets Connection"),
	releases.ResolverConf:              resolverConf,
	releases.UpstreamResolve:           upstreamResolve,
	releases.IstioRetryBudget:          istioRetryBudget,
	releases.ResetBeforeRequest:        resetBeforeRequest,
	releases.H1SafeDrain:               h1SafeDrain,
	releases.V2Upgraded:                v2Upgraded,
	releases.IstioNo503Retry:           istioDefaultRetry,
	releases.IstioHTTPRouteRetry:       istioRouteRetry,
	releases.NginxIncNextUpstream:      nginxIncNextUpstream,
	releases.GatewayMergeType:          dropped(true),
	releases.GatewayClientIdle:         gatewayClientIdle,
	releases.GatewayDropsRouteTimeouts: dropped(false),
	releases.VSMultipleRegexRoutes:     routesDiffer,
	releases.ContourMinusOneOff:        routesDiffer,
	releases.TraefikIOGroup:            routesDiffer,
	releases.TraefikContainoUsRemoved:  routesDiffer,
	releases.TraefikRetryStatus:        routesDiffer,
}

// directiveChanges are found by the nginx directive walk
// (nginx.Config.ReleaseUses), without the model of either run.
var directiveChanges = map[*releases.Change]bool{
	releases.KeepaliveLocal: true, releases.ProxyHTTP2: true, releases.SSLDirective: true,
	releases.HTTP2Directive: true, releases.ListenHTTP2: true, releases.HTTP2Push: true,
	releases.AddHeaderInherit: true,
}

// byDirectives reports whether the change is found by the nginx
// directives alone.
func byDirectives(c *releases.Change) bool { return directiveChanges[c] }

// matcherOf is how to find where change c touches a configuration; nil
// when nothing says (TestEveryChangeIsMatched).
func matcherOf(c *releases.Change) matcher {
	if directiveChanges[c] {
		return directives
	}
	return matchers[c]
}

// proxied lists the routes of p that forward on their own (an if block
// using its location's proxy_pass is its location's business).
func proxied(p *model.Proxy) []*model.Route {
	var out []*model.Route
	for _, r := range p.Routes() {
		if r.Forward != nil && !r.Forward.Inherited {
			out = append(out, r)
		}
	}
	return out
}

func upstreamKeepalive(s *scene) []touch {
	var out []touch
	for _, u := range s.without.Upstreams {
		if u.Kind != "upstream" || u.Implicit || u.PoolSize.Explicit() {
			continue
		}
		at := []rules.Related{{Pos: u.Pos, Message: fmt.Sprintf("upstream %q, without keepalive", u.Name)}}
		if len(u.Routes) == 0 {
			out = append(out, touch{pos: u.Pos, what: fmt.Sprintf("upstream %q has no keepalive directive (no location proxies to it)", u.Name)})
			continue
		}
		seen := map[*model.Route]bool{}
		for _, r := range u.Routes {
			if seen[r] || r.Forward == nil || r.Forward.Inherited {
				continue
			}
			seen[r] = true
			t := touch{pos: r.Pos, related: at,
				what: fmt.Sprintf("%s proxies to upstream %q (line %d), which has no keepalive directive", r.Name, u.Name, u.Pos.Line)}
			t.note = poolCaveat(r)
			out = append(out, t)
		}
	}
	return out
}

// poolCaveat says why a location's requests would not use the pool its
// upstream keeps: a module that never reuses a connection, or a setting
// of the location that defeats it.
func poolCaveat(r *model.Route) string {
	f, n := r.Forward, r.Nginx
	switch {
	case !f.CanPool:
		return f.Name + " never reuses a connection: the pool stays empty"
	case f.Module == "fastcgi" && n != nil && !n.KeepConn.Value:
		return "fastcgi_keep_conn is off here, so FastCGI backends close every connection"
	case f.Module != "proxy" || n == nil:
		return ""
	case n.HTTPVersion.Explicit() && n.HTTPVersion.Value == "1.0":
		return "proxy_http_version 1.0 here still defeats it"
	case n.ConnectionHeader.Explicit() && strings.EqualFold(n.ConnectionHeader.Value, "close"):
		return "proxy_set_header Connection close here still defeats it"
	}
	return ""
}

// proxyDefault finds the locations that proxy with the proxy module and
// leave a setting to its default.
func proxyDefault(get func(*model.NginxRoute) model.Setting[string], unset string) matcher {
	return func(s *scene) []touch {
		var out []touch
		for _, r := range proxied(s.without) {
			if r.Forward.Module != "proxy" || r.Nginx == nil || !get(r.Nginx).Default() {
				continue
			}
			what := r.Name + ": " + unset
			if u := r.Forward.Upstream; u != nil && !u.Implicit {
				what += fmt.Sprintf(" (it proxies to upstream %q)", u.Name)
			}
			out = append(out, touch{pos: r.Pos, what: what})
		}
		return out
	}
}

func resolverConf(s *scene) []touch {
	var out []touch
	for _, r := range proxied(s.without) {
		if u := r.Forward.Unresolvable; u != nil && u.Valid() {
			out = append(out, touch{pos: r.Forward.Pos,
				what: fmt.Sprintf("%s %s looks %q up when a request comes, and no resolver is set", r.Forward.Name, r.Forward.URL, u.Value)})
		}
	}
	return out
}

// upstreamResolve finds the upstream servers written with the resolve
// parameter, which the releases before it refuse.
func upstreamResolve(s *scene) []touch {
	var out []touch
	for _, u := range s.without.Upstreams {
		for _, srv := range u.Servers {
			if srv.Resolve {
				out = append(out, touch{pos: srv.Pos, what: fmt.Sprintf("server %s resolve in %s", srv.Raw, u.Name)})
			}
		}
	}
	return out
}

// istioRetryBudget finds the DestinationRules' retry budgets, which the
// releases before it do not write into the cluster.
func istioRetryBudget(s *scene) []touch {
	var out []touch
	for _, u := range s.with.Upstreams {
		if rl := u.RetryLimit; rl != nil && rl.Budget.Valid() && !rl.Budget.Default() {
			out = append(out, touch{pos: rl.Budget.Pos(), what: fmt.Sprintf("%s: retryBudget %s", u.Name, rl.Budget.Value)})
		}
	}
	return out
}

// directives are the directives the nginx walk found for the change.
func directives(s *scene) []touch {
	var out []touch
	for _, u := range s.uses {
		if u.Change != s.change {
			continue
		}
		what := u.Directive
		if u.What != "" {
			what = u.What
		}
		out = append(out, touch{pos: u.Pos, what: what})
	}
	return out
}

func resetBeforeRequest(s *scene) []touch {
	var out []touch
	for _, r := range s.without.Routes() {
		for _, c := range r.Retry.Unknown {
			if s.change.Named(c.Value) {
				out = append(out, touch{pos: c.Pos(), what: fmt.Sprintf("%s: %s %s", r.Name, c.Name(), c.Value)})
			}
		}
	}
	return out
}

func h1SafeDrain(s *scene) []touch {
	var out []touch
	for _, l := range s.without.Listeners {
		d := l.MaxConnectionDuration
		if !d.Explicit() || d.Value <= 0 || l.H1SafeMaxConnectionDuration.Value {
			continue
		}
		if c := l.Codec.Value; c == "HTTP2" || c == "HTTP3" {
			continue
		}
		out = append(out, touch{pos: d.Pos(),
			what: fmt.Sprintf("listener %q limits its client connections to %s (%s), HTTP/1 among them", l.Name, durText(d.Value), d.Name())})
	}
	return out
}

// v2Upgraded finds the type URLs of the change's packages in the files
// the configuration was read from.
func v2Upgraded(s *scene) []touch {
	var out []touch
	files := map[string]bool{s.without.Entry: true}
	for _, f := range s.without.Sources {
		files[f] = true
	}
	for _, f := range s.files {
		if !files[f.Path] {
			continue
		}
		for _, pkg := range s.change.Names {
			needle := []byte("type.googleapis.com/" + pkg)
			for off := 0; ; {
				i := bytes.Index(f.Source[off:], needle)
				if i < 0 {
					break
				}
				at := f.PosAt(off + i)
				end := off + i + len(needle)
				for end < len(f.Source) && !bytes.ContainsAny(f.Source[end:end+1], "\"' \t\r\n,}") {
					end++
				}
				out = append(out, touch{pos: at, what: "typed config " + string(f.Source[off+i:end])})
				off = end
			}
		}
	}
	return out
}

func istioDefaultRetry(s *scene) []touch {
	var out []touch
	for _, r := range s.without.Routes() {
		on := r.Retry.On
		if r.Envoy == nil || !on.Default() || r.Envoy.NumRetries.Value <= 0 {
			continue
		}
		what := r.Name + " sets no retries: Istio's default retry policy applies"
		if strings.HasPrefix(on.Name(), "meshConfig.") {
			what = r.Name + ": the mesh's defaultHttpRetryPolicy names no retryOn, so Istio's default conditions apply"
		} else if r.Envoy.NumRetries.Explicit() {
			what = r.Name + ": its retries name no retryOn, so Istio's default conditions apply"
		}
		out = append(out, touch{pos: r.Pos, what: what})
	}
	return out
}

func istioRouteRetry(s *scene) []touch {
	var out []touch
	for _, r := range s.with.Routes() {
		if on := r.Retry.On; on.Explicit() && s.change.Named(strings.TrimSuffix(on.Name(), ".codes")) {
			out = append(out, touch{pos: on.Pos(), what: r.Name + " has a retry stanza"})
		}
	}
	return out
}

func nginxIncNextUpstream(s *scene) []touch {
	var out []touch
	for _, r := range s.with.Routes() {
		settings := []struct {
			name string
			pos  model.Pos
			ok   bool
		}{{r.Retry.On.Name(), r.Retry.On.Pos(), r.Retry.On.Explicit()}, {r.Budget.Name(), r.Budget.Pos(), r.Budget.Explicit()}}
		if r.Nginx != nil {
			settings = append(settings, struct {
				name string
				pos  model.Pos
				ok   bool
			}{r.Nginx.Tries.Name(), r.Nginx.Tries.Pos(), r.Nginx.Tries.Explicit()})
		}
		for _, st := range settings {
			if st.ok && s.change.Named(st.name) {
				out = append(out, touch{pos: st.pos, what: r.Name + ": " + st.name})
			}
		}
	}
	return out
}

func gatewayClientIdle(s *scene) []touch {
	var out []touch
	for _, l := range s.with.Listeners {
		if d := l.IdleTimeout; d.Explicit() && s.change.Named(d.Name()) {
			out = append(out, touch{pos: d.Pos(), what: fmt.Sprintf("%s: %s %s", l.Name, d.Name(), durText(d.Value))})
		}
	}
	return out
}

// dropped finds the settings the run without the change drops and the
// run with it keeps (replaced: those a route policy's replacing drops).
func dropped(replaced bool) matcher {
	return func(s *scene) []touch {
		bug := s.without
		fixed := s.with
		if s.change.Kind == releases.Bug {
			// The releases with the change are those with the bug.
			bug, fixed = s.with, s.without
		}
		kept := map[model.Pos]bool{}
		for _, d := range fixed.Dropped {
			if d.Replaced == replaced {
				kept[d.Pos()] = true
			}
		}
		var out []touch
		for _, d := range bug.Dropped {
			if d.Replaced != replaced || kept[d.Pos()] {
				continue
			}
			t := touch{pos: d.Pos(), what: d.Value}
			if d.By.IsValid() {
				t.related = []rules.Related{{Pos: d.By, Message: d.ByText}}
			}
			out = append(out, t)
		}
		return out
	}
}

// durText writes a duration as configurations do: "60s", "1.5s".
func durText(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// routesDiffer finds the routes a controller's change touches by what
// the two runs read: a route only one of them reads (a resource of an API
// group one release ignores, a VirtualServerRoute one release refuses),
// and a route whose retries differ (fields one release prunes, a count
// one release reads otherwise).
func routesDiffer(s *scene) []touch {
	type retries struct {
		on       string
		attempts int
		replays  int
	}
	read := func(p *model.Proxy) (map[model.Pos]*model.Route, map[model.Pos]retries) {
		routes, rs := map[model.Pos]*model.Route{}, map[model.Pos]retries{}
		if p == nil {
			return routes, rs
		}
		for _, r := range p.Routes() {
			routes[r.Pos] = r
			rs[r.Pos] = retries{strings.Join(r.Retry.On.Value, ","), r.MaxAttempts.Value, len(r.Reexecutes)}
		}
		return routes, rs
	}
	withRoutes, with := read(s.with)
	withoutRoutes, without := read(s.without)
	var out []touch
	for pos, r := range withRoutes {
		switch old, ok := without[pos]; {
		case !ok:
			out = append(out, touch{pos: pos, what: r.Name + " is read only with the change"})
		case old != with[pos]:
			out = append(out, touch{pos: pos, what: r.Name + ": its retries are read otherwise"})
		}
	}
	for pos, r := range withoutRoutes {
		if _, ok := with[pos]; !ok {
			out = append(out, touch{pos: pos, what: r.Name + " is read only without the change"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos.Before(out[j].pos) })
	return out
}
