package chain

import (
	"fmt"

	"github.com/proxylint/proxylint/model"
)

// DefaultMaxPaths bounds the request paths listed from one entry route
// (--max-paths). Routes that proxy back to the upstreams in front of them
// make the number of simple paths grow exponentially with the hops: one
// upstream of ten local servers that each proxy back to it has millions.
const DefaultMaxPaths = 10000

// maxPaths is the chain's bound on paths per entry route.
func maxPaths(c *model.Chain) int {
	if c.MaxPaths > 0 {
		return c.MaxPaths
	}
	return DefaultMaxPaths
}

// Paths lists the ways a request entering at route r continues through
// loaded hops: each path starts with r and follows links to the route of
// the next hop, up to a route with no further loaded hop. It lists at most
// c.MaxPaths of them (Truncated tells when there are more).
func Paths(c *model.Chain, r *model.Route) [][]*model.Route {
	out, _ := paths(c, r, maxPaths(c))
	return out
}

// Truncated reports whether more than c.MaxPaths request paths start at
// r, so that Paths lists only some of them.
func Truncated(c *model.Chain, r *model.Route) bool {
	_, more := paths(c, r, maxPaths(c))
	return more
}

// pathBudget reports the entry routes from which more request paths lead
// through the loaded hops than the chain's bound: the path analysis sees
// only some of them, so the run must not pass as clean.
func pathBudget(proxies []*model.Proxy, c *model.Chain) []model.Diagnostic {
	var out []model.Diagnostic
	for _, p := range proxies {
		for _, r := range p.Routes() {
			if r.Forward == nil || c.Reached(r.Listener) || !Truncated(c, r) {
				continue
			}
			n := maxPaths(c)
			out = append(out, model.Diagnostic{
				Code: model.CodeLoad, Severity: model.Error, Pos: r.Pos, Fatal: true,
				Message: fmt.Sprintf("more than %d request paths lead from %s through the loaded configurations (hops that proxy back to one another); only %d were analysed (raise the limit with --max-paths)", n, r.Name, n),
			})
		}
	}
	return out
}

// paths walks depth first and stops at limit paths. Every call of walk
// ends at least one path, so the work is bounded by limit times the
// length of the longest path.
func paths(c *model.Chain, r *model.Route, limit int) ([][]*model.Route, bool) {
	if limit <= 0 {
		limit = 1
	}
	var out [][]*model.Route
	more := false
	var walk func(path []*model.Route)
	walk = func(path []*model.Route) {
		last := path[len(path)-1]
		extended := false
		seen := map[*model.Route]bool{}
		for _, l := range c.Next(last) {
			// Several servers of one upstream may reach the same route.
			if l.To == nil || l.To.Forward == nil || contains(path, l.To) || seen[l.To] {
				continue
			}
			if len(out) >= limit {
				more = true
				return
			}
			seen[l.To] = true
			extended = true
			walk(append(append([]*model.Route{}, path...), l.To))
		}
		if !extended {
			if len(out) >= limit {
				more = true
				return
			}
			out = append(out, path)
		}
	}
	walk([]*model.Route{r})
	return out, more
}
