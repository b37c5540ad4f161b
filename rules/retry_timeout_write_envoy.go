package rules

import (
	"fmt"
	"path/filepath"

	"github.com/proxylint/proxylint/model"
)

// samePolicy gathers the Envoy routes of a file whose retry policies are
// equal, field for field, and whose findings say the same: one retry
// policy on every route, as a control plane writes a mesh-wide default
// into each route of a config dump. It is one cause, reported once, at
// the first route, with the others as related locations.
type samePolicy struct {
	order  []policyKey
	groups map[policyKey]*policyGroup
}

type policyKey struct {
	file, policy, message, fix string
}

type policyGroup struct {
	first Finding
	// copies are the same policy written on other routes; others every
	// route besides the first, copies and routes inheriting it alike.
	copies int
	others []Related
}

// shownRoutes is how many of the other routes a finding lists.
const shownRoutes = 10

func (s *samePolicy) add(f Finding, r *model.Route) {
	if s.groups == nil {
		s.groups = map[policyKey]*policyGroup{}
	}
	policy := r.Envoy.RetryPolicy
	if policy == "" {
		// A policy known by its setting alone (a Kubernetes resource's
		// retries): only the same setting is the same policy.
		policy = f.Pos.String()
	}
	k := policyKey{f.Pos.File, policy, f.Message, f.Fix.Message}
	g, ok := s.groups[k]
	if !ok {
		s.groups[k] = &policyGroup{first: f}
		s.order = append(s.order, k)
		return
	}
	if f.Pos == g.first.Pos {
		// A virtual host's policy inherited by another route: the same
		// finding; the route is named.
		g.others = append(g.others, Related{Pos: r.Pos, Message: "in effect for " + routeName(r) + " too"})
		return
	}
	g.copies++
	if len(g.first.Fix.Edits) > 0 {
		// The fix of one cause, reported once, is made at every copy,
		// or not at all.
		if len(f.Fix.Edits) == 0 {
			g.first.Fix = Advice(g.first.Fix.Message)
		} else {
			g.first.Fix.Edits = append(g.first.Fix.Edits, f.Fix.Edits...)
		}
	}
	g.others = append(g.others, Related{Pos: f.Pos, Message: "the same policy on " + routeName(r)})
}

func (s *samePolicy) report(pass *Pass) {
	for _, k := range s.order {
		g := s.groups[k]
		f := g.first
		if n := g.copies; n > 0 {
			f.Message += fmt.Sprintf(" The same policy is on %d other route%s of %s: one cause, reported once", n, plural(n), filepath.Base(k.file))
			if len(g.others) > shownRoutes {
				f.Message += fmt.Sprintf(" (the first %d listed)", shownRoutes)
			}
			f.Message += "."
		}
		shown := g.others
		if len(shown) > shownRoutes {
			shown = shown[:shownRoutes]
		}
		f.Related = append(f.Related, shown...)
		pass.Report(f)
	}
}
