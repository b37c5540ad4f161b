package envoy

import (
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/envoyroute"
)

// What an Envoy route does with its settings (how long one attempt and
// all attempts may take, how often one request may be sent, which retries
// can run it again, the pool it reuses) is computed in package envoyroute,
// which the Kubernetes loader shares for the routes control planes write.

// behaviour works out what Envoy does on route r; pools holds each
// upstream's connection pool, one shared by the routes to it, as the
// nginx loader shares them.
func behaviour(r *model.Route, pools map[*model.Upstream]*model.Pool) {
	envoyroute.Written(r, r.Listener.Proxy.Target)
	if r.Forward != nil && r.Forward.Upstream != nil {
		if p := pools[r.Forward.Upstream]; p != nil {
			r.Pool = p
		}
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
