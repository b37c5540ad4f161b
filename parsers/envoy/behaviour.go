package envoy

import (
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// What an Envoy route does with its settings (docs/semantics.md §A, §B,
// §C, §D): how long one attempt and all attempts may take, how often one
// request may be sent, which retries can run it again, and the pool it
// reuses. Rules and the path analysis read these values, never the fields.

// reexecuting are the retry_on conditions that can send a request again
// after the upstream received it (source/common/router/retry_state_impl.cc):
// 5xx, gateway-error and reset retry any upstream reset, even after the
// whole request was sent, and a per-try timeout, when one is in effect
// (PerTryInEffect), counts as a reset under them (router.cc,
// onPerTryTimeoutCommon → maybeRetryReset); the others
// retry on a response the upstream sent. connect-failure, refused-stream
// and reset-before-request retry only what never reached the upstream.
var reexecuting = map[string]model.Reexecution{
	"5xx":                    {Condition: "5xx", Timeout: true, Response: true, Reset: true},
	"gateway-error":          {Condition: "gateway-error", Timeout: true, Response: true, Reset: true},
	"reset":                  {Condition: "reset", Timeout: true},
	"retriable-4xx":          {Condition: "retriable-4xx", Response: true},
	"retriable-status-codes": {Condition: "retriable-status-codes", Response: true},
	"retriable-headers":      {Condition: "retriable-headers", Response: true},
	"cancelled":              {Condition: "cancelled", Response: true},
	"deadline-exceeded":      {Condition: "deadline-exceeded", Response: true},
	"internal":               {Condition: "internal", Response: true},
	"resource-exhausted":     {Condition: "resource-exhausted", Response: true},
	"unavailable":            {Condition: "unavailable", Response: true},
}

// PerTryInEffect reports whether a route's per_try_timeout bounds an
// attempt: one at or above a non-zero route timeout is dropped (router.cc,
// FilterUtility::finalTimeout), and without one no try times out on its
// own, so the conditions that retry a timed-out try never see one.
func PerTryInEffect(e *model.EnvoyRoute) bool {
	pt := e.PerTryTimeout
	return pt.Value > 0 && (e.Timeout.Value == 0 || pt.Value < e.Timeout.Value)
}

// Reexecution says whether retry_on condition c can send a request again
// after the upstream received it, and on what (the table above): the one
// home of that fact for every loader that builds Envoy routes.
func Reexecution(c string) (model.Reexecution, bool) {
	x, ok := reexecuting[c]
	return x, ok
}

// behaviour works out what Envoy does on route r; pools holds each
// upstream's connection pool, one shared by the routes to it, as the
// nginx loader shares them.
func behaviour(r *model.Route, pools map[*model.Upstream]*model.Pool) {
	e := r.Envoy
	r.Budget = e.Timeout
	r.BudgetCutsAttempts = true
	r.AttemptTimeout = e.Timeout
	if PerTryInEffect(e) {
		r.AttemptTimeout = e.PerTryTimeout
	}
	if r.Forward != nil && r.Forward.Upstream != nil {
		u := r.Forward.Upstream
		if r.Pool = pools[u]; r.Pool == nil {
			r.Pool = &model.Pool{Upstream: u, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
		}
	}
	on := r.Retry.On
	r.MaxAttempts = model.Setting[int]{Value: 1, Name: on.Name, Pos: on.Pos, Level: on.Level, Default: on.Default}
	if !on.Valid() || !e.NumRetries.Valid() {
		// No retry policy: Envoy retries nothing.
		return
	}
	known := false
	for _, c := range on.Value {
		known = known || KnownRetryOn(c, r.Listener.Proxy.Target)
	}
	if !known || r.Forward == nil {
		return
	}
	n := e.NumRetries
	r.MaxAttempts = model.Setting[int]{Value: 1 + max(n.Value, 0), Name: n.Name, Pos: n.Pos, Level: n.Level, Default: n.Default}
	if r.MaxAttempts.Value <= 1 {
		return
	}
	methods := e.RetriableMethods
	if !methods.Any && len(methods.Allowed) == 0 && methods.Source == "" {
		methods = model.Methods{Any: true}
	}
	for _, c := range on.Value {
		x, ok := reexecuting[c]
		if !ok || !KnownRetryOn(c, r.Listener.Proxy.Target) {
			continue
		}
		x.Methods = methods
		x.Setting = on
		x.Timeout = x.Timeout && PerTryInEffect(e)
		r.Reexecutes = append(r.Reexecutes, x)
	}
}

// stream: a route that carries long-lived streams. A route whose own
// upgrade_configs allow WebSocket is one (an entry that is not enabled
// turns upgrades off on the route, whatever the connection manager says:
// source/extensions/filters/network/http_connection_manager/config.cc,
// HttpConnectionManagerConfig::createUpgradeFilterChain). The connection
// manager's upgrade_configs allow upgrades on every route, which says
// nothing about which route carries them, so they do not make a route a
// stream: its plain requests still wait for the route timeout. A gRPC route
// (match grpc: {}, or a content-type matcher that takes
// application/grpc) carries streaming calls, but the route timeout runs
// from the end of the request to the end of the response
// (route_components.proto, RouteAction.timeout), so a server stream is
// cut when it ends: only with the timeout disabled does the route carry
// long-lived streams, whose silence idle_timeout bounds. The same holds for
// a route that takes server-sent events (an accept matcher that takes
// text/event-stream).
func stream(b *builder, r msg, n *node, timeout model.Setting[time.Duration]) model.Setting[bool] {
	for _, u := range r.sub("route").list("upgrade_configs") {
		if strings.EqualFold(u.str("upgrade_type"), "websocket") {
			if on, set := u.wrapped("enabled"); set && !on.Bool() {
				return model.Setting[bool]{}
			}
			key, _ := n.get("route").field("upgrade_configs")
			return model.Set(true, fieldName(key, "upgrade_configs"), "route", b.pos(orNode(key, n)))
		}
	}
	if timeout.Value != 0 {
		return model.Setting[bool]{}
	}
	m, mNode := r.sub("match"), n.get("match")
	if m.has("grpc") {
		key, _ := mNode.field("grpc")
		return model.Set(true, "match.grpc", "route", b.pos(orNode(key, n)))
	}
	for i, h := range m.list("headers") {
		var streamType, name string
		switch {
		case strings.EqualFold(h.str("name"), "content-type"):
			streamType, name = "application/grpc", "match.headers content-type"
		case strings.EqualFold(h.str("name"), "accept"):
			streamType, name = "text/event-stream", "match.headers accept"
		default:
			continue
		}
		if match, known := headerMatcher(h); known && match(streamType) && !match("application/json") {
			return model.Set(true, name, "route", b.pos(orNode(mNode.get("headers").item(i), n)))
		}
	}
	return model.Setting[bool]{}
}
