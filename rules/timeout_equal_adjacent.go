package rules

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/proxylint/proxylint/parsers"
)

// TimeoutEqualAdjacent flags two adjacent hops that wait the same time for
// the same request, so they give up at the same moment and race.
var TimeoutEqualAdjacent = register(&Rule{
	ID:       "timeout-equal-adjacent",
	Summary:  "two adjacent hops wait the same time, so they race: one logs 499, the other 504",
	Severity: parsers.Warning,
	Tags:     []string{"nginx", "envoy", "timeouts", "chain"},
	Check:    checkTimeoutEqualAdjacent,
})

func checkTimeoutEqualAdjacent(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		if p.Product == parsers.Envoy {
			timeoutEqualAdjacentEnvoy(pass, p)
			continue
		}
		ports := listenersByPort(p)
		inner := innerListeners(p, ports)
		var front *parsers.Hop
		if hops := pass.Model.Chain.Front(p); len(hops) > 0 {
			front = hops[len(hops)-1]
		}
		for _, r := range p.Routes() {
			if r.Pass == nil || !r.ReadTimeout.Valid() {
				continue
			}
			if f, ok := equalToInnerLayer(ports, r); ok {
				pass.Report(f)
				continue
			}
			if front != nil && !inner[r.Listener] {
				if f, ok := equalToFront(r, front); ok {
					pass.Report(f)
					continue
				}
			}
			if f, ok := retryBudgetEqualsRead(r); ok {
				pass.Report(f)
			}
		}
	}
}

// equalToInnerLayer: the route proxies to another server of the same
// configuration (a second layer) whose route waits just as long.
func equalToInnerLayer(ports map[int][]*parsers.Listener, r *parsers.Route) (Finding, bool) {
	in, via := innerRoute(ports, r)
	if in == nil || in.ReadTimeout.Value != r.ReadTimeout.Value || r.ReadTimeout.Value == 0 {
		return Finding{}, false
	}
	return Finding{
		Pos: r.ReadTimeout.Pos,
		Message: fmt.Sprintf("%s equals the timeout of the layer it proxies to (%s on %s waits %s too): "+
			"both give up at the same moment, so which one answers is a race: the same request can show as 504 in one layer's log and 499 in the other's.",
			durText(r.ReadTimeout), routeName(in), via, dur(in.ReadTimeout.Value)),
		Related: []Related{
			{Pos: in.ReadTimeout.Pos, Message: "the inner layer's " + durText(in.ReadTimeout)},
			{Pos: r.Pass.Pos, Message: "proxied to " + via + " here"},
		},
		Fix: fmt.Sprintf("make each inner layer give up first: for example %s %s in the inner %s, so its 504 reaches the client",
			in.ReadTimeout.Name, dur(shorter(in.ReadTimeout.Value)), routeName(in)),
	}, true
}

// equalToFront: the hop declared in front of the proxy (--behind,
// --client-timeout) waits as long as the route.
func equalToFront(r *parsers.Route, front *parsers.Hop) (Finding, bool) {
	t := front.RequestTimeout
	if !t.Valid() || t.Value != r.ReadTimeout.Value || t.Value == 0 {
		return Finding{}, false
	}
	who := front.Name
	if front.Kind == parsers.HopClient {
		who = "the client"
	}
	return Finding{
		Pos: r.ReadTimeout.Pos,
		Message: fmt.Sprintf("%s equals the %s that %s (%s) waits for this proxy: both give up at the same moment, "+
			"so which one answers is a race: the same request can show as 504 on one side and 499 on the other.",
			durText(r.ReadTimeout), dur(t.Value), who, t.Name),
		Related: relatedSetting(t, r.ReadTimeout.Pos, "declared here"),
		Fix: fmt.Sprintf("keep each hop's timeout strictly below the one in front of it: %s %s behind a %s %s",
			r.ReadTimeout.Name, dur(shorter(t.Value)), dur(t.Value), strings.TrimPrefix(who, "the ")),
	}, true
}

// retryBudgetEqualsRead: *_next_upstream_timeout equal to the read timeout
// leaves no time for the retry after a timeout (the budget is checked only
// when an attempt fails, from the start of the first; semantics.md §C).
func retryBudgetEqualsRead(r *parsers.Route) (Finding, bool) {
	b := r.Retry.Timeout
	if !b.Explicit() || b.Value == 0 || b.Value != r.ReadTimeout.Value || !r.Retry.Has("timeout") {
		return Finding{}, false
	}
	return Finding{
		Pos: b.Pos,
		Message: fmt.Sprintf("%s equals %s: an attempt that times out has used the whole retry budget, "+
			"so the retry on \"timeout\" that %s asks for can never start.",
			durText(b), durText(r.ReadTimeout), r.Retry.On.Name),
		Related: relatedSetting(r.ReadTimeout, b.Pos, durText(r.ReadTimeout)),
		Fix: fmt.Sprintf("give retries room: %s well above %s (e.g. %s), or lower %s",
			b.Name, r.ReadTimeout.Name, dur(2*r.ReadTimeout.Value), r.ReadTimeout.Name),
	}, true
}

// shorter suggests a timeout a little below d.
func shorter(d time.Duration) time.Duration {
	switch {
	case d >= 20*time.Second:
		return d - 5*time.Second
	case d >= 2*time.Second:
		return d - time.Second
	}
	return d / 2
}

// listenersByPort indexes the servers of p by the ports they listen on (0
// for unix sockets).
func listenersByPort(p *parsers.Proxy) map[int][]*parsers.Listener {
	out := map[int][]*parsers.Listener{}
	for _, l := range p.Listeners {
		seen := map[int]bool{}
		for _, a := range l.Addresses {
			if !seen[a.Port] {
				seen[a.Port] = true
				out[a.Port] = append(out[a.Port], l)
			}
		}
	}
	return out
}

// innerListeners are the servers of p that another route of p proxies to.
func innerListeners(p *parsers.Proxy, ports map[int][]*parsers.Listener) map[*parsers.Listener]bool {
	out := map[*parsers.Listener]bool{}
	done := map[*parsers.Upstream]bool{}
	for _, r := range p.Routes() {
		if r.Pass == nil || r.Pass.Upstream == nil || done[r.Pass.Upstream] {
			continue
		}
		done[r.Pass.Upstream] = true
		for _, s := range r.Pass.Upstream.Servers {
			for _, l := range ports[s.Address.Port] {
				if serves(l, s.Address) {
					out[l] = true
				}
			}
		}
	}
	return out
}

// innerRoute finds the route of another server in the same configuration
// that a request proxied by r lands on, and describes the address.
func innerRoute(ports map[int][]*parsers.Listener, r *parsers.Route) (*parsers.Route, string) {
	if r.Pass.Upstream == nil {
		return nil, ""
	}
	path, known := forwardedPath(r)
	for _, s := range r.Pass.Upstream.Servers {
		for _, l := range ports[s.Address.Port] {
			if !serves(l, s.Address) {
				continue
			}
			if in := landingRoute(l, r, path, known); in != nil {
				return in, s.Address.String()
			}
		}
	}
	return nil, ""
}

// serves reports whether listener l accepts connections to address a on
// this machine: the same port on a wildcard listen with a local target, or
// the same host; the same unix socket.
func serves(l *parsers.Listener, a parsers.Address) bool {
	for _, la := range l.Addresses {
		if la.Unix != "" || a.Unix != "" {
			if la.Unix != "" && la.Unix == a.Unix {
				return true
			}
			continue
		}
		if la.Port != a.Port {
			continue
		}
		if la.Wildcard() && isLocal(a.Host) {
			return true
		}
		if strings.EqualFold(la.Host, a.Host) || (isLoopback(la.Host) && isLoopback(a.Host)) {
			return true
		}
	}
	return false
}

func isLoopback(h string) bool {
	h = strings.ToLower(strings.Trim(h, "[]"))
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

func isLocal(h string) bool {
	h = strings.Trim(h, "[]")
	return isLoopback(h) || h == "0.0.0.0" || h == "::" || h == "*" || h == ""
}

// forwardedPath is the path a proxied request carries to the next layer: the
// URI of the pass directive when it has one, else the location's own path.
func forwardedPath(r *parsers.Route) (string, bool) {
	url := r.Pass.URL
	if i := strings.Index(url, "://"); i >= 0 {
		rest := url[i+3:]
		if strings.HasPrefix(rest, "unix:") {
			if j := strings.Index(rest[len("unix:"):], ":"); j >= 0 {
				return rest[len("unix:")+j+1:], !strings.Contains(rest, "$")
			}
			rest = ""
		} else if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:], !strings.Contains(rest[j:], "$")
		}
	}
	switch r.Match.Kind {
	case parsers.MatchPrefix, parsers.MatchExact:
		return r.Match.Path, true
	}
	return "", false
}

// landingRoute picks the location of l that nginx chooses for path, as
// ngx_http_core_find_location does: an exact match, else the longest prefix
// (and within it, its nested locations), then the first regular expression
// that matches unless that prefix is "^~". It returns the route only if it
// proxies, and nil whenever the choice is uncertain (an unknown path, a
// regular expression Go cannot read); with an unknown path, the location of
// l if it has only one and it proxies.
func landingRoute(l *parsers.Listener, from *parsers.Route, path string, known bool) *parsers.Route {
	if !known {
		top := locationsIn(l, nil)
		if len(top) == 1 && top[0] != from {
			return proxying(top[0])
		}
		return nil
	}
	in, ok := findLocation(l, nil, path)
	if !ok || in == from {
		return nil
	}
	return proxying(in)
}

// locationsIn lists the locations of l directly inside parent (nil: the
// server's own).
func locationsIn(l *parsers.Listener, parent *parsers.Route) []*parsers.Route {
	var out []*parsers.Route
	for _, r := range l.Routes {
		if r.Parent == parent && r.Kind == "location" && r.Match.Kind != parsers.MatchNamed {
			out = append(out, r)
		}
	}
	return out
}

// findLocation runs nginx's location search at one level; ok is false when
// the result cannot be known.
func findLocation(l *parsers.Listener, parent *parsers.Route, path string) (*parsers.Route, bool) {
	level := locationsIn(l, parent)
	var best *parsers.Route
	for _, in := range level {
		switch in.Match.Kind {
		case parsers.MatchExact:
			if in.Match.Path == path {
				return in, true
			}
		case parsers.MatchPrefix:
			if strings.HasPrefix(path, in.Match.Path) && (best == nil || len(in.Match.Path) > len(best.Match.Path)) {
				best = in
			}
		}
	}
	if best != nil {
		if nested, ok := findLocation(l, best, path); !ok {
			return nil, false
		} else if nested != nil {
			return nested, true
		}
	}
	if best == nil || !best.Match.NoRegex {
		for _, in := range level {
			if in.Match.Kind != parsers.MatchRegex {
				continue
			}
			expr := in.Match.Path
			if !in.Match.CaseSensitive {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, false
			}
			if re.MatchString(path) {
				return in, true
			}
		}
	}
	return best, true
}

func proxying(r *parsers.Route) *parsers.Route {
	if r.Pass == nil {
		return nil
	}
	return r
}
