package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// DirectiveNoEffect flags directives of a pass module that no request's
// handler reads: proxy_read_timeout where grpc_pass handles the requests,
// fastcgi_param where proxy_pass does, a proxy_* setting in a location
// that passes nothing or returns first.
var DirectiveNoEffect = &Rule{
	ID:       "directive-no-effect",
	Summary:  "a proxy_*, grpc_*, fastcgi_*, uwsgi_* or scgi_* directive that no request's handler reads: the value written never applies",
	Severity: model.Warning,
	Tags:     []string{"nginx", "timeouts", "correctness"},
	Products: nginxFamily,
	Check:    checkDirectiveNoEffect,
}

func checkDirectiveNoEffect(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for i := range p.NoEffect {
			pass.Report(noEffectFinding(pass, p, &p.NoEffect[i]))
		}
	}
}

func noEffectFinding(pass *Pass, p *model.Proxy, g *model.NoEffect) Finding {
	first := g.Directives[0]
	var names []string
	for _, d := range g.Directives {
		names = append(names, directiveText(d))
	}
	where := "in " + g.BlockName
	if g.Level == "http" || g.BlockName == g.Level {
		where = "at " + g.Level + " level"
	}
	verb := "has"
	if len(names) > 1 {
		verb = "have"
	}
	f := Finding{Pos: first.Pos()}
	f.Message = fmt.Sprintf("%s %s %s no effect: %s.", quoteList(shortList(names, 4)), where, verb, insteadText(p, g))
	for _, d := range g.Directives[1:] {
		f.Related = append(f.Related, Related{Pos: d.Pos(), Message: d.Name() + ", not read either"})
	}
	for _, d := range g.Directives {
		if d.Include.IsValid() {
			f.Related = append(f.Related, Related{Pos: d.Include, Message: "the include that brings " + d.Name() + " in"})
			break
		}
	}
	// Every pass that handles the requests instead, and the first two of
	// the routes that pass nothing.
	others := 0
	for _, h := range g.Instead {
		if h.Kind != model.HandlerPass {
			if others++; others > 2 {
				continue
			}
		}
		f.Related = append(f.Related, Related{Pos: h.Pos, Message: handlerRelated(h)})
	}
	f.Fix = noEffectFix(pass, g)
	return f
}

// directiveText is a directive with its arguments, for messages.
func directiveText(d model.Unread) string {
	if d.Value == "" {
		return d.Name()
	}
	return d.Name() + " " + d.Value
}

// shortList keeps the first n items and counts the rest.
func shortList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(append([]string(nil), items[:n-1]...), fmt.Sprintf("%d more", len(items)-n+1))
}

// insteadText says what takes the requests the directives apply to: the
// passes of other modules first; the locations that pass nothing, or
// return first, counted when there are passes too.
func insteadText(p *model.Proxy, g *model.NoEffect) string {
	var passes, others []string
	for _, h := range g.Instead {
		switch h.Kind {
		case model.HandlerPass:
			s := fmt.Sprintf("%s hands its requests to %s, which reads %s_* directives only", h.Route, h.Name, strings.TrimSuffix(h.Name, "_pass"))
			if v := counterpartValues(p, g, h); v != "" {
				s += " (" + v + ")"
			}
			passes = append(passes, s)
		case model.HandlerReturn:
			others = append(others, fmt.Sprintf("return ends every request of %s before any handler runs", h.Route))
		default:
			s := fmt.Sprintf("%s passes no request with %s_pass", h.Route, g.Module)
			if h.Fallback != "" {
				s += fmt.Sprintf(" (try_files hands them to %s, which runs with its own settings%s)", h.Fallback, fallbackValues(p, g, h))
			}
			others = append(others, s)
		}
	}
	// The loader keeps the first few handlers of each kind and counts
	// the routes.
	if more := g.Passes - len(passes); more > 0 {
		passes = append(passes, fmt.Sprintf("%d more %s theirs to other modules too", more, locationsWord(more, "hands", "hand")))
	}
	switch {
	case len(passes) > 0 && g.Others == 1:
		passes = append(passes, "the other location they apply to passes no request with "+g.Module+"_pass, or returns first")
	case len(passes) > 0 && g.Others > 1:
		passes = append(passes, fmt.Sprintf("the %d other locations they apply to pass no request with %s_pass, or return first", g.Others, g.Module))
	case len(passes) > 0:
	case g.Others > len(others):
		passes = append(append(passes, others...), fmt.Sprintf("%d more %s the same", g.Others-len(others), locationsWord(g.Others-len(others), "does", "do")))
	default:
		passes = others
	}
	return strings.Join(passes, "; ")
}

// counterpartValues says what the counterparts of timeout directives are
// at the route handler h passes: "grpc_read_timeout is 60s (default)
// there".
func counterpartValues(p *model.Proxy, g *model.NoEffect, h model.Handler) string {
	r := routeOfPass(p, h.Pos)
	if r == nil {
		return ""
	}
	var out []string
	for _, d := range g.Directives {
		if d.Counterpart == "" || !d.Carries {
			continue
		}
		if s, ok := routeDuration(r, d.Counterpart); ok {
			v := dur(s.Value)
			if s.Default() {
				v += " (default)"
			}
			out = append(out, fmt.Sprintf("%s is %s there instead of %s", d.Counterpart, v, d.Value))
		}
	}
	return quoteList(out)
}

// fallbackValues says what the named location a route hands its requests
// to uses for the directives: ", proxy_read_timeout 60s (default)".
func fallbackValues(p *model.Proxy, g *model.NoEffect, h model.Handler) string {
	var r *model.Route
	for _, x := range p.Routes() {
		if x.Match.Kind == model.MatchNamed && x.Match.Path == h.Fallback && x.Listener == listenerOf(p, h.Pos) {
			r = x
		}
	}
	if r == nil {
		return ""
	}
	var out []string
	for _, d := range g.Directives {
		if s, ok := routeDuration(r, d.Name()); ok {
			out = append(out, settingText(s, dur(s.Value)))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return ": " + quoteList(out)
}

// listenerOf is the listener of the route at pos.
func listenerOf(p *model.Proxy, pos model.Pos) *model.Listener {
	for _, r := range p.Routes() {
		if r.Pos == pos {
			return r.Listener
		}
	}
	return nil
}

func routeOfPass(p *model.Proxy, pos model.Pos) *model.Route {
	for _, r := range p.Routes() {
		if r.Forward != nil && r.Forward.Pos == pos && !r.Forward.Inherited {
			return r
		}
	}
	return nil
}

// routeDuration is the route's timeout setting named name, if the model
// carries it.
func routeDuration(r *model.Route, name string) (model.Setting[time.Duration], bool) {
	for _, s := range []model.Setting[time.Duration]{r.ConnectTimeout, r.AttemptTimeout, r.Budget} {
		if s.Name() == name {
			return s, true
		}
	}
	if send, ok := sendTimeout(r); ok && send.Name() == name {
		return send, true
	}
	return model.Setting[time.Duration]{}, false
}

func handlerRelated(h model.Handler) string {
	switch h.Kind {
	case model.HandlerPass:
		return h.Name + " handles the requests of " + h.Route
	case model.HandlerReturn:
		return "return ends the requests of " + h.Route
	}
	if h.Fallback != "" {
		return h.Route + " hands its requests to " + h.Fallback
	}
	return h.Route + " passes no request"
}

// noEffectFix renames each directive to the counterpart the handler in use
// reads where the value carries over, and removes the ones it has no use
// for: safe, since the renamed value is the one the author wrote and the
// removed directives were read by nothing. Where no pass handles the
// requests it is advice (display-only).
func noEffectFix(pass *Pass, g *model.NoEffect) Fix {
	anyPass := false
	for _, h := range g.Instead {
		if h.Kind == model.HandlerPass {
			anyPass = true
		}
	}
	if !anyPass {
		advice := fmt.Sprintf("remove the %s_* directives, or write them where the requests are passed with %s_pass", g.Module, g.Module)
		for _, h := range g.Instead {
			if h.Fallback != "" {
				advice = fmt.Sprintf("write them in %s, where the requests are proxied (every location that hands requests to it gets them), or remove them", h.Fallback)
			}
			if h.Kind == model.HandlerReturn {
				advice = "remove them: the return ends every request first (if the location is meant to pass requests on, the return belongs in an if block or another location)"
			}
		}
		return Advice(advice)
	}
	x := newFixer(pass)
	var renamed, removed []string
	for _, d := range g.Directives {
		if d.Include.IsValid() || d.Pos().File != g.Block.File {
			// Written in another file, maybe shared: not edited.
			x.fail()
			break
		}
		s := x.nginxStatement(d.Pos(), d.Name())
		switch {
		case d.Counterpart != "" && d.Carries && !d.CounterpartSet:
			if s != nil {
				x.take(s.ed.Rename(s.Pos, d.Counterpart))
			}
			renamed = append(renamed, d.Counterpart+" "+d.Value)
		default:
			x.removeStatement(s)
			removed = append(removed, d.Name())
		}
	}
	var desc []string
	if len(renamed) > 0 {
		desc = append(desc, "write "+quoteList(renamed)+", which the handler in use reads")
	}
	if len(removed) > 0 {
		desc = append(desc, "remove "+quoteList(removed)+", which it has no use for")
	}
	advice := strings.Join(desc, "; ")
	for _, d := range g.Directives {
		if d.Counterpart != "" && !d.Carries {
			advice += fmt.Sprintf(" (%s over HTTP/2: grpc_pass keeps connections alive by itself, with keepalive in the upstream block)", d.Name())
			break
		}
	}
	return SafeFix(advice, x.result()).Or(advice)
}

// removeStatement deletes a simple directive, with its line when it is
// alone on it.
func (x *fixer) removeStatement(s *statement) {
	if s == nil || x.failed {
		return
	}
	x.take(s.ed.Remove(s.Pos))
}

// locationsWord is "1 more location hands" or "2 more locations hand".
func locationsWord(n int, one, many string) string {
	if n == 1 {
		return "location " + one
	}
	return "locations " + many
}
