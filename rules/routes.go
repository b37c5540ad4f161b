package rules

import (
	"iter"
	"time"

	"github.com/proxylint/proxylint/model"
)

// What the loaders write of a route for one proxy language is in the
// route's part for it (model.Route.Nginx, model.Route.Envoy). These are
// the only places a rule asks which part a route has: a check of one
// language ranges over that language's routes, and never branches on the
// product inside.

// nginxRoutes yields the routes of p that nginx's configuration language
// sets (nginx, Angie, and the nginx an Ingress controller renders), with
// their nginx part.
func nginxRoutes(p *model.Proxy) iter.Seq2[*model.Route, *model.NginxRoute] {
	return func(yield func(*model.Route, *model.NginxRoute) bool) {
		for _, r := range p.Routes() {
			if r.Nginx != nil && !yield(r, r.Nginx) {
				return
			}
		}
	}
}

// envoyRoutes yields the routes of p that Envoy's configuration sets
// (Envoy, and the Envoy that Istio or Envoy Gateway configures), with
// their Envoy part.
func envoyRoutes(p *model.Proxy) iter.Seq2[*model.Route, *model.EnvoyRoute] {
	return func(yield func(*model.Route, *model.EnvoyRoute) bool) {
		for _, r := range p.Routes() {
			if r.Envoy != nil && !yield(r, r.Envoy) {
				return
			}
		}
	}
}

// otherRoutes yields the routes of p that neither nginx's nor Envoy's
// configuration sets (Traefik's).
func otherRoutes(p *model.Proxy) iter.Seq[*model.Route] {
	return func(yield func(*model.Route) bool) {
		for _, r := range p.Routes() {
			if r.Nginx == nil && r.Envoy == nil && !yield(r) {
				return
			}
		}
	}
}

// The facts below are read from a route's part for one language where a
// check that concerns every route needs one of them; a route of another
// language has none (ok false).

// sendTimeout is how long nginx waits while sending a request to the
// upstream (proxy_send_timeout and its kin).
func sendTimeout(r *model.Route) (s model.Setting[time.Duration], ok bool) {
	if r.Nginx == nil {
		return s, false
	}
	return r.Nginx.SendTimeout, true
}

// connectionHeader is the Connection header nginx sends upstream.
func connectionHeader(r *model.Route) (s model.Setting[string], ok bool) {
	if r.Nginx == nil {
		return s, false
	}
	return r.Nginx.ConnectionHeader, true
}

// numRetries is an Envoy route's retry_policy.num_retries.
func numRetries(r *model.Route) (s model.Setting[int], ok bool) {
	if r.Envoy == nil {
		return s, false
	}
	return r.Envoy.NumRetries, true
}
