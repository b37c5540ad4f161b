package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/envoyroute"
	"github.com/proxylint/proxylint/releases"
)

// Contour's HTTPProxy (projectcontour.io/v1): each route of a root
// HTTPProxy (one with a virtualhost), and of the HTTPProxies it includes,
// becomes an Envoy route with the retry policy and timeouts Contour writes
// (product contour). Sources are files of projectcontour/contour at
// v1.33.6 (docs/kubernetes.md lists them):
//
//   - internal/dag/httpproxy_processor.go computeRoutes (:662-860): an
//     include's conditions prefix the included HTTPProxy's routes, which
//     are read with their own policies; a root cannot include a root, a
//     missing include gets a 502 route, cycles are refused.
//   - internal/dag/policy.go retryPolicy (:77-110): retryOn defaults to
//     "5xx" (:65-68); a count of 0 or none is 1; -1 is meant to disable
//     retries, but internal/envoy/v3/route.go retryPolicy (:538-556)
//     writes num_retries only when it is above 0, so Envoy's default of 1
//     applies (projectcontour/contour#5944, fixed after 1.33).
//   - timeoutPolicy (policy.go:442-476, internal/timeout/timeout.go:71-96):
//     "" and "0s" leave Envoy's default (a 15s route timeout, a 1h idle
//     upstream connection), "infinity" turns the timeout off.
//   - the cluster's connect timeout is the configuration's 2s, and the
//     listener's idle timeout its 60s (pkg/config/parameters.go:1086-1087).

const (
	contourRouteTimeout   = 15 * time.Second // Envoy's route timeout
	contourConnectTimeout = 2 * time.Second
	contourListenerIdle   = 60 * time.Second
	noteContourTimeout    = "Envoy's 15s route timeout, which Contour keeps when timeoutPolicy.response is unset or 0s (internal/dag/policy.go, timeoutPolicy)"
	noteContourRetryOn    = "Contour's default: a retryPolicy without retryOn retries on 5xx (internal/dag/policy.go, retryOn)"
	noteContourCount      = "Contour's default: a retryPolicy without count (or count 0) makes one retry (internal/dag/policy.go, retryPolicy)"
	noteContourIdleConn   = "Envoy's 1h idle timeout for upstream connections, which Contour keeps when timeoutPolicy.idleConnection is unset"
	noteContourConnect    = "Contour's connect timeout, 2s unless its configuration sets timeouts.connect-timeout (pkg/config/parameters.go)"
	noteContourListener   = "Contour's connection idle timeout, 60s unless its configuration sets timeouts.connection-idle-timeout (pkg/config/parameters.go)"
)

// contourDisablesMinusOne reports whether count -1 turns retries off in
// the target: the fix of projectcontour/contour#5944 is in no release up
// to 1.33, so a release after it is assumed to have it.
func contourDisablesMinusOne(t model.Target) bool {
	return !t.Version.IsZero() && releases.ContourMinusOneOff.In(t)
}

func httpProxyKind(o *object) bool {
	return o.Kind == "HTTPProxy" && o.APIVersion == "projectcontour.io/v1"
}

// contour builds the proxy of the run's HTTPProxies: a listener per root
// HTTPProxy, the routes of its includes among its own.
func (l *loader) contour(p *model.Proxy, hps []*object, res *Result) {
	byName := map[string][]*object{}
	for _, o := range hps {
		byName[o.Name] = append(byName[o.Name], o)
	}
	included := map[*object]bool{}
	ups := map[string]*model.Upstream{}
	for _, root := range hps {
		if get(root.Spec, "virtualhost") == nil {
			continue
		}
		root.use(res)
		ln := &model.Listener{Proxy: p, Name: "HTTPProxy " + root.Name, Pos: root.pos(root.Node), Select: longestMatch}
		ln.IdleTimeout = model.NewSetting(contourListenerIdle, "connection-idle-timeout", "default", root.pos(root.Node), true, noteContourListener)
		p.Listeners = append(p.Listeners, ln)
		l.httpProxyRoutes(p, ln, root, root, "", []*object{root}, byName, included, ups, res)
	}
	for _, o := range hps {
		if get(o.Spec, "virtualhost") == nil && !included[o] {
			l.diag("load-error", model.Note, o.pos(o.Node), "HTTPProxy %s has no virtualhost and no root HTTPProxy of the input includes it, so Contour serves none of its routes here: lint it with the root that includes it", o.Name)
			o.used = true
			o.src.used++
		}
	}
}

// httpProxyRoutes adds the routes of hp, under the path prefix of the
// includes that lead to it, and follows its includes.
func (l *loader) httpProxyRoutes(p *model.Proxy, ln *model.Listener, root, hp *object, prefix string, visited []*object, byName map[string][]*object, included map[*object]bool, ups map[string]*model.Upstream, res *Result) {
	for _, inc := range items(get(hp.Spec, "includes")) {
		name := scalar(get(inc, "name"))
		ns := scalar(get(inc, "namespace"))
		if ns == "" {
			ns = hp.Namespace
		}
		var child *object
		for _, c := range byName[name] {
			if sameNamespace(ns, c.Namespace) {
				child = c
				break
			}
		}
		incPrefix := prefix + conditionPrefix(inc)
		switch {
		case child == nil:
			l.diag("load-error", model.Note, hp.pos(get(inc, "name")), "HTTPProxy %s includes %s/%s, which is not in the input: Contour answers %s with 502 until it is, and its routes are not checked here", hp.Name, ns, name, orSlash(incPrefix))
			continue
		case get(child.Spec, "virtualhost") != nil:
			l.invalid(hp.pos(get(inc, "name")), "HTTPProxy %s includes %s, a root HTTPProxy (it has a virtualhost): Contour refuses the include and answers %s with 502", hp.Name, child.Name, orSlash(incPrefix))
			continue
		case containsObj(visited, child):
			l.invalid(hp.pos(get(inc, "name")), "HTTPProxy %s includes %s, which includes it back: Contour refuses the include cycle", hp.Name, child.Name)
			continue
		}
		included[child] = true
		child.use(res)
		l.httpProxyRoutes(p, ln, root, child, incPrefix, append(visited, child), byName, included, ups, res)
	}
	for i, rt := range items(get(hp.Spec, "routes")) {
		l.httpProxyRoute(p, ln, root, hp, i, rt, prefix, ups)
	}
}

func containsObj(list []*object, o *object) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}

func orSlash(s string) string {
	if s == "" {
		return "/"
	}
	return s
}

// conditionPrefix is the path prefix of a route's or include's
// conditions ("" when none).
func conditionPrefix(n *yaml.Node) string {
	for _, c := range items(get(n, "conditions")) {
		if v := scalar(get(c, "prefix")); v != "" {
			return v
		}
	}
	return ""
}

// joinPrefix joins an include's prefix and a route's path as Contour's
// mergePathMatchConditions does: the parts concatenated, one slash
// between them.
func joinPrefix(a, b string) string {
	switch {
	case a == "" || a == "/":
		return b
	case b == "" || b == "/":
		return a
	}
	return strings.TrimSuffix(a, "/") + "/" + strings.TrimPrefix(b, "/")
}

func (l *loader) httpProxyRoute(p *model.Proxy, ln *model.Listener, root, hp *object, i int, rt *yaml.Node, prefix string, ups map[string]*model.Upstream) {
	match := model.Match{Kind: model.MatchPrefix, Path: orSlash(joinPrefix(prefix, conditionPrefix(rt))), CaseSensitive: true}
	for _, c := range items(get(rt, "conditions")) {
		if v := scalar(get(c, "exact")); v != "" {
			match = model.Match{Kind: model.MatchExact, Path: joinPrefix(prefix, v), CaseSensitive: true}
		}
		if v := scalar(get(c, "regex")); v != "" {
			match = model.Match{Kind: model.MatchRegex, Path: joinPrefix(prefix, v), CaseSensitive: true}
		}
	}
	name := fmt.Sprintf("%s routes[%d]", ln.Name, i)
	if hp.Name != strings.TrimPrefix(ln.Name, "HTTPProxy ") {
		name = fmt.Sprintf("%s HTTPProxy %s routes[%d]", ln.Name, hp.Name, i)
	}
	r := &model.Route{Listener: ln, Kind: "route", Name: name + " " + match.Path, Pos: hp.pos(rt), Match: match, Methods: model.Methods{Any: true}, Envoy: &model.EnvoyRoute{}}
	ln.Routes = append(ln.Routes, r)
	e := r.Envoy
	tp := get(rt, "timeoutPolicy")
	e.Timeout = l.contourTimeout(hp, tp, "response", contourRouteTimeout, r.Pos, noteContourTimeout)
	if n := get(tp, "idle"); n != nil {
		if d, ok := l.contourDuration(hp, n, "timeoutPolicy.idle"); ok {
			e.IdleTimeout = model.Set(d, "timeoutPolicy.idle", "route", hp.pos(n))
		}
	}
	l.contourRetry(p, r, hp, rt)
	e.BackOffBase = model.Default(25*time.Millisecond, "retry_back_off.base_interval", r.Pos)
	e.BackOffMax = model.Default(250*time.Millisecond, "retry_back_off.max_interval", r.Pos)
	if b, _ := strconv.ParseBool(scalar(get(rt, "enableWebsockets"))); b {
		r.Stream = model.Set(true, "enableWebsockets", "route", hp.pos(get(rt, "enableWebsockets")))
	}
	svcs := items(get(rt, "services"))
	if len(svcs) == 0 {
		return // a redirect or direct response proxies nothing
	}
	nameNode := get(svcs[0], "name")
	ns := hp.Namespace
	svc, port := scalar(nameNode), scalar(get(svcs[0], "port"))
	host := fqdn(svc, ns)
	portN, _ := strconv.Atoi(port)
	idleConn := l.contourTimeout(hp, tp, "idleConnection", defaultIdleTimeout, hp.pos(nameNode), noteContourIdleConn)
	key := fmt.Sprintf("%s/%s/%s/%v", namespace(hp), svc, port, idleConn.Value)
	u, ok := ups[key]
	if !ok {
		// Contour names clusters NAMESPACE/SERVICE/PORT/HASH, the hash of
		// the cluster's own settings (internal/dag/cache.go).
		u = &model.Upstream{Proxy: p, Kind: "cluster", Name: fmt.Sprintf("%s/%s/%s", namespace(hp), svc, port), Pos: hp.pos(nameNode),
			Servers:            []model.Server{{Address: model.Address{Host: host, Port: portN}, Raw: svc, Pos: hp.pos(nameNode), Service: serviceRef(namespace(hp), svc, port)}},
			ClosedUnderRequest: "reset",
			PoolIdle:           idleConn,
			PoolLifetime:       model.Default(time.Duration(0), "max_connection_duration", hp.pos(nameNode)),
			ConnectTimeout:     model.NewSetting(contourConnectTimeout, "connect-timeout", "default", hp.pos(nameNode), true, noteContourConnect),
		}
		ups[key] = u
		p.Upstreams = append(p.Upstreams, u)
	}
	u.Routes = append(u.Routes, r)
	r.Forward = &model.Forward{Module: "envoy", Name: "services.name", Pos: hp.pos(nameNode), URL: svc + ":" + port,
		Target: model.Address{Host: host, Port: portN}, CanPool: true, Upstream: u}
	r.ConnectTimeout = u.ConnectTimeout
	r.Pool = &model.Pool{Upstream: u, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	// Envoy passes the request's Host, the virtual host's fqdn, unless a
	// headers policy of the route or its service sets Host.
	r.Host = scalar(get(get(root.Spec, "virtualhost"), "fqdn"))
	for _, h := range append(items(get(get(rt, "requestHeadersPolicy"), "set")), items(get(get(svcs[0], "requestHeadersPolicy"), "set"))...) {
		if strings.EqualFold(scalar(get(h, "name")), "Host") {
			r.Host = ""
		}
	}
	envoyRouteBehaviour(r)
}

// contourDuration reads a duration of an HTTPProxy: a Go duration, or
// "infinity" / "infinite" (0: the timeout is off).
func (l *loader) contourDuration(o *object, n *yaml.Node, field string) (time.Duration, bool) {
	switch s := scalar(n); s {
	case "":
		return 0, false
	case "infinity", "infinite":
		return 0, true
	}
	return l.dur(o, n, field)
}

// contourTimeout reads timeoutPolicy.FIELD: unset or 0s keeps Envoy's
// default dflt (a default pointing at block), infinity turns it off.
func (l *loader) contourTimeout(o *object, tp *yaml.Node, field string, dflt time.Duration, block model.Pos, note string) model.Setting[time.Duration] {
	name := "timeoutPolicy." + field
	if n := get(tp, field); n != nil {
		if d, ok := l.contourDuration(o, n, name); ok {
			if d > 0 || scalar(n) == "infinity" || scalar(n) == "infinite" {
				return model.Set(d, name, "route", o.pos(n))
			}
			s := model.NewSetting(dflt, name, "route", o.pos(n), true, "0s is no value to Contour: it keeps Envoy's default (internal/timeout/timeout.go, Parse); infinity turns the timeout off")
			return s
		}
	}
	s := model.Default(dflt, name, block)
	s = s.WithNote(note)
	return s
}

// contourRetry reads a route's retryPolicy as Contour writes it into the
// Envoy route; without one the route does not retry.
func (l *loader) contourRetry(p *model.Proxy, r *model.Route, o *object, rt *yaml.Node) {
	e := r.Envoy
	key, rp := getKV(rt, "retryPolicy")
	if rp == nil {
		e.NumRetries = model.NewSetting(0, "retryPolicy", "route", r.Pos, true, "a route without a retryPolicy is not retried")
		return
	}
	countNode := get(rp, "count")
	switch n, err := strconv.Atoi(scalar(countNode)); {
	case countNode == nil || scalar(countNode) == "":
		e.NumRetries = model.NewSetting(1, "retryPolicy.count", "route", o.pos(key), true, noteContourCount)
	case err != nil || n < -1:
		l.invalid(o.pos(countNode), "retryPolicy.count: %q is not a count of -1 or more; the API server refuses the HTTPProxy", scalar(countNode))
		e.NumRetries = model.NewSetting(1, "retryPolicy.count", "route", o.pos(key), true, noteContourCount)
	case n == -1 && contourDisablesMinusOne(p.Target):
		e.NumRetries = model.Set(0, "retryPolicy.count", "route", o.pos(countNode))
	case n == -1:
		l.diag(CodeIgnored, model.Warning, o.pos(countNode),
			"retryPolicy.count -1 does not turn retries off: Contour %s writes no num_retries for it, and Envoy's default of one retry on %s applies (internal/envoy/v3/route.go, retryPolicy; projectcontour/contour#5944); remove the retryPolicy to turn retries off",
			contourReleases(p.Target), contourRetryOnText(rp))
		e.NumRetries = model.NewSetting(1, "retryPolicy.count", "route", o.pos(countNode), false, "count -1 is documented to turn retries off, but Contour "+contourReleases(p.Target)+" then writes no num_retries and Envoy's default of one retry applies (internal/envoy/v3/route.go, retryPolicy; projectcontour/contour#5944)")
	case n == 0:
		e.NumRetries = model.NewSetting(1, "retryPolicy.count", "route", o.pos(countNode), false, "count 0 is Envoy's default of one retry to Contour (internal/dag/policy.go, retryPolicy)")
	default:
		e.NumRetries = model.Set(n, "retryPolicy.count", "route", o.pos(countNode))
	}
	if n := get(rp, "perTryTimeout"); n != nil {
		// An unparsable value keeps Envoy's default, none (policy.go:87-90).
		if d, err := time.ParseDuration(scalar(n)); err == nil && d > 0 {
			e.PerTryTimeout = model.Set(d, "retryPolicy.perTryTimeout", "route", o.pos(n))
		}
	}
	var on []string
	onNode := get(rp, "retryOn")
	for _, c := range items(onNode) {
		on = append(on, scalar(c))
	}
	if len(on) == 0 {
		r.Retry.On = model.NewSetting([]string{"5xx"}, "retryPolicy.retryOn", "default", o.pos(key), true, noteContourRetryOn)
	} else {
		r.Retry.On = model.Set(on, "retryPolicy.retryOn", "route", o.pos(onNode))
	}
	// RetryOn is a list of the RetryOn enum (apis/projectcontour/v1/httpproxy.go).
	r.Retry.OnShape = model.WordsInList
	if contains(on, "retriable-status-codes") {
		// Envoy retries the codes listed, which Istio's loader carries in
		// the conditions as numbers: the same here.
		v := append([]string{}, r.Retry.On.Value...)
		for _, c := range items(get(rp, "retriableStatusCodes")) {
			v = append(v, scalar(c))
		}
		r.Retry.On.Value = v
	}
}

// contourRetryOnText is what a retry policy retries on, for a message.
func contourRetryOnText(rp *yaml.Node) string {
	var on []string
	for _, c := range items(get(rp, "retryOn")) {
		on = append(on, scalar(c))
	}
	if len(on) == 0 {
		return "5xx (Contour's default retryOn)"
	}
	return strings.Join(on, ",")
}

// contourReleases names the Contour releases that write count -1 as no
// num_retries: every release up to 1.33.
func contourReleases(t model.Target) string {
	if t.Version.IsZero() {
		return "1.20 to 1.33"
	}
	return t.Version.String()
}

// envoyRouteBehaviour: what an Envoy route built by a control plane other
// than Istio does with its settings (the same as envoyroute.Istio, with no
// default retry policy of the control plane's own).
func envoyRouteBehaviour(r *model.Route) {
	pool := r.Pool
	envoyroute.Istio(r, false)
	r.Pool = pool
	if !envoyroute.PerTryInEffect(r.Envoy) {
		r.AttemptTimeout = r.Envoy.Timeout
	}
}

// longestMatch is how Contour orders a virtual host's routes for Envoy's
// first match: exact paths, then prefixes longest first
// (internal/sorter/sorter.go), so the longest match takes a request.
func longestMatch(l *model.Listener, path string, known bool) *model.Route {
	var best *model.Route
	for _, r := range l.Routes {
		switch r.Match.Kind {
		case model.MatchExact:
			if known && path == r.Match.Path {
				return r
			}
		case model.MatchPrefix:
			if (r.Match.Path == "/" || known && strings.HasPrefix(path, r.Match.Path)) && (best == nil || len(r.Match.Path) > len(best.Match.Path)) {
				best = r
			}
		case model.MatchRegex:
			return nil // not ordered by length: uncertain
		}
	}
	return best
}
