package releases

import "github.com/proxylint/proxylint/model"

// Citations: nginx's CHANGES is docs/xml/nginx/changes.xml of nginx/nginx
// at 3f6f7824 (the line numbers below), its sources at the release tags
// named; Angie's at webserver-llc/angie f8cbca88 and its tags; Envoy's
// changelogs/X.Y.0.yaml of envoyproxy/envoy; Istio's release notes in
// istio/istio.io, its sources at the tags named (docs/semantics.md §H,
// docs/kubernetes.md).

// nginx and Angie.
var (
	// UpstreamKeepalive: an upstream block without a keepalive directive
	// keeps a pool of idle connections by default (not Angie, which kept
	// it off when it merged nginx 1.31.2).
	UpstreamKeepalive = &Change{
		ID: "nginx-upstream-keepalive", Kind: Default,
		Subject: "keepalive in upstream blocks without one",
		Before:  "no pool: every request opens a new connection",
		After:   "keepalive 32 local: up to 32 idle connections per worker, each reused only by the location that opened it",
		Keep:    "keepalive 0;",
		Adopt:   "keepalive 32; (nginx before 1.29.7 has no \"local\": its pool is shared by every location)",
		Names:   []string{"keepalive"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 29, Patch: 7},
			Source: "nginx CHANGES 1.29.7: \"now the \"keepalive\" directive in the \"upstream\" block is enabled by default\" " +
				"(docs/xml/nginx/changes.xml:821-829); src/http/modules/ngx_http_upstream_keepalive_module.c:552-555 at release-1.29.7 " +
				"and release-1.30.0 (max_cached unset: local = 1, max_cached = 32), absent at release-1.28.3"}},
	}

	// ProxyHTTPVersion: proxy_http_version defaults to 1.1.
	ProxyHTTPVersion = &Change{
		ID: "nginx-proxy-http-version", Kind: Default,
		Subject: "proxy_http_version",
		Before:  "1.0: nginx never reuses an upstream connection after an HTTP/1.0 request",
		After:   "1.1",
		Keep:    "proxy_http_version 1.0;",
		Adopt:   "proxy_http_version 1.1;",
		Names:   []string{"proxy_http_version"},
		Releases: []Release{
			{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 29, Patch: 7},
				Source: "nginx CHANGES 1.29.7: \"now ngx_http_proxy_module supports keepalive by default; the default value for " +
					"\"proxy_http_version\" is \"1.1\"\" (docs/xml/nginx/changes.xml:831-841); src/http/modules/ngx_http_proxy_module.c " +
					"merges NGX_HTTP_VERSION_10 at release-1.28.3 (:4056-4057), NGX_HTTP_VERSION_11 at release-1.29.7 and release-1.30.0 (:4002-4003)"},
			{Product: model.Angie, Since: model.Version{Major: 1, Minor: 12},
				Source: "Angie CHANGES 1.12.0: \"all functionality of nginx 1.31.2\" (CHANGES:156-161); src/http/modules/ngx_http_proxy_module.c " +
					"merges NGX_HTTP_VERSION_10 at Angie-1.11.8 (:4502), NGX_HTTP_VERSION_11 at Angie-1.12.0 (:4427)"},
		},
	}

	// ProxyConnectionHeader: the proxy module no longer sends
	// "Connection: close".
	ProxyConnectionHeader = &Change{
		ID: "nginx-proxy-connection-header", Kind: Default,
		Subject: "the Connection header sent upstream",
		Before:  "\"Connection: close\": the backend closes the connection after every response",
		After:   "none: the connection stays open for the next request",
		Keep:    "proxy_set_header Connection close; (a proxy_set_header at a level drops those it would inherit)",
		Adopt:   "proxy_set_header Connection \"\";",
		Names:   []string{"proxy_set_header Connection"},
		Releases: []Release{
			{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 29, Patch: 7},
				Source: "nginx CHANGES 1.29.7: \"the \"Connection\" proxy header is not sent by default anymore\" " +
					"(docs/xml/nginx/changes.xml:831-841); src/http/modules/ngx_http_proxy_module.c's default headers send " +
					"\"Connection: close\" at release-1.28.3 (:844), nothing at release-1.29.7 and release-1.30.0 (:749)"},
			{Product: model.Angie, Since: model.Version{Major: 1, Minor: 12},
				Source: "Angie CHANGES 1.12.0: \"all functionality of nginx 1.31.2\" (CHANGES:156-161); src/http/modules/ngx_http_proxy_module.c's " +
					"default headers send \"Connection: close\" at Angie-1.11.8 (:1040), nothing at Angie-1.12.0 (:941)"},
		},
	}

	// KeepaliveLocal: the local parameter of keepalive.
	KeepaliveLocal = &Change{
		ID: "nginx-keepalive-local", Kind: Added,
		Subject: "the local parameter of keepalive",
		Before:  "invalid number of arguments: one location's pool is every location's",
		After:   "keepalive N local; keeps a pool for each location",
		Names:   []string{"keepalive"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 29, Patch: 7},
			Source: "nginx CHANGES 1.29.7: \"the \"local\" parameter of the \"keepalive\" directive in the \"upstream\" block\" (docs/xml/nginx/changes.xml:811-819)"}},
	}

	// ProxyHTTP2: proxy_http_version 2.
	ProxyHTTP2 = &Change{
		ID: "nginx-proxy-http2", Kind: Added,
		Subject: "proxy_http_version 2",
		Before:  "invalid value: the proxy module speaks HTTP/1.x only",
		After:   "HTTP/2 to the backend",
		Names:   []string{"proxy_http_version"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 29, Patch: 4},
			Source: "nginx CHANGES 1.29.4: \"the ngx_http_proxy_module supports HTTP/2\" (docs/xml/nginx/changes.xml:1036-1043)"}},
	}

	// ResolverConf: Angie looks names up with /etc/resolv.conf's servers
	// when no resolver is set.
	ResolverConf = &Change{
		ID: "angie-resolver-conf", Kind: Default,
		Subject: "resolver",
		Before:  "none: a host name computed at run time fails with 502 (\"no resolver defined to resolve\")",
		After:   "resolver conf: host names are looked up with the DNS servers of /etc/resolv.conf",
		Keep:    "resolver off;",
		Adopt:   "resolver with the addresses of the DNS servers",
		Names:   []string{"resolver"},
		Releases: []Release{{Product: model.Angie, Since: model.Version{Major: 1, Minor: 12},
			Source: "Angie CHANGES 1.12.0: \"in the HTTP and stream modules, the \"resolver conf\" directive is now set by default, " +
				"using DNS servers from \"/etc/resolv.conf\"\" (CHANGES:35-39)"}},
	}

	// SSLDirective: "ssl on" is refused.
	SSLDirective = &Change{
		ID: "nginx-ssl-directive", Kind: Removed,
		Subject: "the ssl directive",
		Before:  "accepted, deprecated: nginx -t warns and the server's plain listen serves TLS",
		After:   "unknown directive: nginx refuses to start",
		Adopt:   "listen ... ssl;",
		Names:   []string{"ssl"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 25, Patch: 1},
			Source: "nginx CHANGES 1.25.1: \"the deprecated \"ssl\" directive is not supported anymore\" (docs/xml/nginx/changes.xml:2221-2229)"}},
	}

	// HTTP2Directive: the http2 directive.
	HTTP2Directive = &Change{
		ID: "nginx-http2-directive", Kind: Added,
		Subject: "the http2 directive",
		Before:  "unknown directive: HTTP/2 is turned on by listen ... http2",
		After:   "http2 on; turns HTTP/2 on for a server",
		Names:   []string{"http2"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 25, Patch: 1},
			Source: "nginx CHANGES 1.25.1: \"the \"http2\" directive, which enables HTTP/2 on a per-server basis\" (docs/xml/nginx/changes.xml:2202-2211)"}},
	}

	// ListenHTTP2: the http2 parameter of listen is deprecated.
	ListenHTTP2 = &Change{
		ID: "nginx-listen-http2", Kind: Deprecated,
		Subject: "the http2 parameter of listen",
		Before:  "accepted",
		After:   "deprecated: nginx -t warns \"the \"listen ... http2\" directive is deprecated, use the \"http2\" directive instead\"",
		Adopt:   "http2 on; in the server, and listen without http2",
		Names:   []string{"listen http2"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 25, Patch: 1},
			Source: "nginx CHANGES 1.25.1: \"the \"http2\" parameter of the \"listen\" directive is now deprecated\" (docs/xml/nginx/changes.xml:2202-2211)"}},
	}

	// HTTP2Push: server push is gone; its directives are obsolete.
	HTTP2Push = &Change{
		ID: "nginx-http2-push", Kind: Deprecated,
		Subject: "HTTP/2 server push",
		Before:  "pushes the resources named",
		After:   "obsolete and ignored: nginx -t warns \"the ... directive is obsolete, ignored\" and pushes nothing",
		Names:   []string{"http2_push", "http2_push_preload", "http2_max_concurrent_pushes"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 25, Patch: 1},
			Source: "nginx CHANGES 1.25.1: \"HTTP/2 server push support has been removed\" (docs/xml/nginx/changes.xml:2213-2220); " +
				"src/http/v2/ngx_http_v2_module.c declares the push directives with ngx_http_v2_obsolete at release-1.30.0 (:104-176, :481-493)"}},
	}

	// UpstreamResolve: the resolve parameter of an upstream block's server.
	UpstreamResolve = &Change{
		ID: "nginx-upstream-resolve", Kind: Added,
		Subject: "the resolve parameter of server in an upstream block",
		Before:  "invalid parameter: a host name in an upstream block is looked up once, when nginx starts",
		After:   "server NAME resolve; (with a zone and a resolver) looks the name up again while nginx runs",
		Adopt:   "a variable in the pass directive with a resolver, which looks the name up per request",
		Names:   []string{"server resolve", "resolver"},
		Releases: []Release{
			{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 27, Patch: 3},
				Source: "nginx CHANGES 1.27.3: \"the \"server\" directive in the \"upstream\" block supports the \"resolve\" parameter\", " +
					"\"the \"resolver\" and \"resolver_timeout\" directives in the \"upstream\" block\" (docs/xml/nginx/changes.xml:1634-1651)"},
			{Product: model.Angie, Since: model.Version{Major: 1, Minor: 1},
				Source: "Angie CHANGES 1.1.0: \"the \"resolve\" option of the \"server\" directive in the HTTP module \"upstream\" block\" (CHANGES:1173-1176)"},
		},
	}

	// AddHeaderInherit: add_header_inherit and add_trailer_inherit.
	AddHeaderInherit = &Change{
		ID: "nginx-add-header-inherit", Kind: Added,
		Subject: "add_header_inherit",
		Before:  "a block with an add_header of its own inherits none of the outer levels' add_header",
		After:   "add_header_inherit merge; in that block keeps the outer levels' headers too",
		Adopt:   "repeat the outer add_header lines in the block",
		Names:   []string{"add_header_inherit", "add_trailer_inherit"},
		Releases: []Release{{Product: model.Nginx, Since: model.Version{Major: 1, Minor: 29, Patch: 3},
			Source: "nginx CHANGES 1.29.3: \"the \"add_header_inherit\" and \"add_trailer_inherit\" directives\" (docs/xml/nginx/changes.xml:1113-1122)"}},
	}
)

// Envoy.
var (
	// ResetBeforeRequest: the reset-before-request retry_on token.
	ResetBeforeRequest = &Change{
		ID: "envoy-reset-before-request", Kind: Added,
		Subject: "retry_on reset-before-request",
		Before:  "an unknown token, which Envoy drops without a word",
		After:   "retries a request reset before any of it reached the backend",
		Names:   []string{"reset-before-request"},
		Releases: []Release{{Product: model.Envoy, Since: model.Version{Major: 1, Minor: 31},
			Source: "Envoy 1.31.0 changelog, new_features, area retry: \"Added reset-before-request retry policy\" (changelogs/1.31.0.yaml)"}},
	}

	// H1SafeDrain: http1_safe_max_connection_duration.
	H1SafeDrain = &Change{
		ID: "envoy-h1-safe-drain", Kind: Added,
		Subject: "http1_safe_max_connection_duration",
		Before:  "no such field: max_connection_duration drains an HTTP/1 connection and closes it under idle keep-alive clients",
		After:   "http1_safe_max_connection_duration: true closes an HTTP/1 connection only after answering a request on it with \"Connection: close\"",
		Names:   []string{"http1_safe_max_connection_duration"},
		Releases: []Release{{Product: model.Envoy, Since: model.Version{Major: 1, Minor: 32},
			Source: "Envoy 1.32.0 changelog, behavior_changes, area http: \"Added HTTP/1-safe option for max_connection_duration in " +
				"HttpConnectionManager\" (changelogs/1.32.0.yaml)"}},
	}

	// V2Upgraded: the v2-era extension types Envoy upgraded to v3 until
	// the API type oracle was removed.
	V2Upgraded = &Change{
		ID: "envoy-v2-upgraded-types", Kind: Removed,
		Subject: "typed configs of v2-era extension types",
		Before:  "upgraded to the v3 message and read",
		After:   "refused: no factory takes the type URL",
		Names: []string{
			"envoy.config.filter.thrift.router.v2alpha1.",
			"envoy.config.health_checker.redis.v2.",
			"envoy.config.resource_monitor.fixed_heap.v2alpha.",
			"envoy.config.resource_monitor.injected_resource.v2alpha.",
			"envoy.config.retry.omit_canary_hosts.v2.",
			"envoy.config.retry.previous_hosts.v2.",
		},
		Releases: []Release{{Product: model.Envoy, Since: model.Version{Major: 1, Minor: 20},
			Source: "Envoy 1.20.0 version history: the API type oracle and --bootstrap-version removed (envoyproxy/envoy#17724; " +
				"docs/root/version_history/v1.20.0.rst)"}},
	}
)

// Kubernetes control planes.
var (
	// IstioNo503Retry: Istio's default retry policy no longer retries a
	// 503.
	IstioNo503Retry = &Change{
		ID: "istio-default-retry-503", Kind: Default,
		Subject: "Istio's default retry policy",
		Before:  "retries a 503 response (retriable_status_codes 503), which the backend may have sent after it ran the request",
		After:   "retries no 503: connect-failure, refused-stream, unavailable, cancelled only",
		Keep:    "retries.retryOn: connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes,503 (or istiod with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false, until 1.26)",
		Adopt:   "retries.retryOn: connect-failure,refused-stream,unavailable,cancelled",
		Names:   []string{"retries"},
		Releases: []Release{{Product: model.Istio, Since: model.Version{Major: 1, Minor: 24},
			Source: "Istio 1.24.0 change notes: \"Fixed default retry policy to exclude retries on 503 which is potentially unsafe for " +
				"idempotent requests\" (istio/istio.io content/en/news/releases/1.24.x/announcing-1.24/change-notes/index.md; istio/istio#50506); " +
				"pilot/pkg/networking/core/route/retry/retry.go sets RetriableStatusCodes 503 at 1.23.0 (:48), only when " +
				"features.Exclude503FromDefaultRetries is false at 1.24.0 (:52-53), which pilot/pkg/features/pilot.go makes true (:240)"}},
	}

	// IstioHTTPRouteRetry: istiod translates an HTTPRoute rule's retry.
	IstioHTTPRouteRetry = &Change{
		ID: "istio-httproute-retry", Kind: Added,
		Subject: "an HTTPRoute rule's retry stanza",
		Before:  "ignored: the route gets Istio's default retry policy",
		After:   "translated into the route's retry policy",
		Names:   []string{"retry"},
		Releases: []Release{{Product: model.Istio, Since: model.Version{Major: 1, Minor: 25},
			Source: "pilot/pkg/config/kube/gateway/conversion.go reads rule.Retry at 1.25.0 (:271), not at 1.24.0"}},
	}

	// IstioRetryBudget: a DestinationRule's trafficPolicy.retryBudget.
	IstioRetryBudget = &Change{
		ID: "istio-retry-budget", Kind: Added,
		Subject: "a DestinationRule's trafficPolicy.retryBudget",
		Before:  "no such field: the cluster's retries in flight are bounded by connectionPool.http.maxRetries alone (4294967295 unless set)",
		After:   "an Envoy retry_budget on the cluster (20% of the active requests, at least 3, by default), which replaces max_retries",
		Adopt:   "connectionPool.http.maxRetries above 0",
		Names:   []string{"retryBudget"},
		Releases: []Release{{Product: model.Istio, Since: model.Version{Major: 1, Minor: 27},
			Source: "pilot/pkg/networking/core/cluster_traffic_policy.go, applyRetryBudget (percent 0.2 and a floor of 3 by default), " +
				"since 1.27.0; istio/api networking/v1alpha3/destination_rule.proto TrafficPolicy.retry_budget"}},
	}

	// NginxIncNextUpstream: NGINX Ingress Controller's
	// proxy-next-upstream annotations.
	NginxIncNextUpstream = &Change{
		ID: "nginx-ingress-next-upstream", Kind: Added,
		Subject: "the nginx.org/proxy-next-upstream, -timeout and -tries annotations",
		Before:  "ignored: nginx's defaults apply (error timeout, no time limit, as many tries as servers)",
		After:   "written as proxy_next_upstream, proxy_next_upstream_timeout and proxy_next_upstream_tries",
		Names:   []string{"nginx.org/proxy-next-upstream", "nginx.org/proxy-next-upstream-timeout", "nginx.org/proxy-next-upstream-tries"},
		Releases: []Release{{Product: model.NginxIngress, Since: model.Version{Major: 5, Minor: 4},
			Source: "nginx/kubernetes-ingress internal/configs/annotations.go reads them since v5.4.0 (:317-335 at v5.5.4), " +
				"internal/configs/version1/nginx.ingress.tmpl writes them (:412-420)"}},
	}

	// GatewayMergeType: a BackendTrafficPolicy's mergeType.
	GatewayMergeType = &Change{
		ID: "envoy-gateway-merge-type", Kind: Added,
		Subject: "a BackendTrafficPolicy's mergeType",
		Before:  "no such field (the API server prunes it): a route's policy replaces the Gateway's",
		After:   "mergeType: StrategicMerge merges the route's policy onto the Gateway's",
		Adopt:   "repeat the Gateway policy's settings in the route's policy",
		Names:   []string{"mergeType"},
		Releases: []Release{{Product: model.EnvoyGateway, Since: model.Version{Major: 1, Minor: 4},
			Source: "envoyproxy/gateway api/v1alpha1/backendtrafficpolicy_types.go has mergeType since v1.4.0 (:50-56); " +
				"internal/gatewayapi/backendtrafficpolicy.go merges it (:166-221)"}},
	}

	// GatewayClientIdle: a ClientTrafficPolicy's timeout.http.idleTimeout.
	GatewayClientIdle = &Change{
		ID: "envoy-gateway-client-idle-timeout", Kind: Added,
		Subject: "a ClientTrafficPolicy's timeout.http.idleTimeout",
		Before:  "no such field: Envoy's 1h idle timeout applies",
		After:   "the listener's idle timeout for client connections",
		Names:   []string{"timeout.http.idleTimeout"},
		Releases: []Release{{Product: model.EnvoyGateway, Since: model.Version{Major: 1, Minor: 1},
			Source: "envoyproxy/gateway ClientTrafficPolicy has timeout.http.idleTimeout since v1.1.0; " +
				"internal/xds/translator/listener.go writes it as common_http_protocol_options.idle_timeout (:403-404 at v1.5.0)"}},
	}

	// GatewayDropsRouteTimeouts: 1.1.0 to 1.1.2 lose an HTTPRoute's
	// timeouts under a BackendTrafficPolicy that targets the route.
	GatewayDropsRouteTimeouts = &Change{
		ID: "envoy-gateway-route-timeouts-dropped", Kind: Bug,
		Subject: "an HTTPRoute's timeouts under a BackendTrafficPolicy that targets the route",
		Before:  "dropped: the route runs under Envoy's 15s",
		After:   "kept",
		Names:   []string{"timeouts"},
		Releases: []Release{{Product: model.EnvoyGateway, Since: model.Version{Major: 1, Minor: 1}, Until: model.Version{Major: 1, Minor: 1, Patch: 3},
			Source: "envoyproxy/gateway internal/gatewayapi/backendtrafficpolicy.go rebuilds the route's traffic settings from the policy alone " +
				"at v1.1.2 (:416-437); envoyproxy/gateway#4091, fixed in 1.1.3 and 1.2.0"}},
	}
)

// The controllers': NGINX Inc's VirtualServer, Contour, Traefik
// (docs/kubernetes.md).
var (
	// VSMultipleRegexRoutes: several regex routes of a VirtualServer may
	// delegate to one VirtualServerRoute, paths compared normalised.
	VSMultipleRegexRoutes = &Change{
		ID: "nginx-ingress-vsr-multiple-regex", Kind: Added,
		Subject: "several regex routes delegating to one VirtualServerRoute",
		Before:  "refused: a VirtualServerRoute takes the subroutes of one route, paths compared as written",
		After:   "each subroute is the location of the route whose path it is, paths compared once normalised (\"~ /x\" is \"~/x\")",
		Names:   []string{"route"},
		Releases: []Release{{Product: model.NginxIngress, Since: model.Version{Major: 5, Minor: 5},
			Source: "nginx/kubernetes-ingress pkg/apis/configuration/validation/virtualserver.go v5.5.4:1659-1760 (NormalizePath), not at v5.4.0"}},
	}

	// ContourMinusOneOff: retryPolicy.count -1 turns retries off.
	ContourMinusOneOff = &Change{
		ID: "contour-retry-count-minus-one", Kind: Default,
		Subject: "retryPolicy.count -1",
		Before:  "no num_retries written: Envoy's default of one retry applies",
		After:   "retries off",
		Names:   []string{"retryPolicy.count"},
		Releases: []Release{{Product: model.Contour, Since: model.Version{Major: 1, Minor: 34},
			Source: "projectcontour/contour#5944, fixed after 1.33 (internal/envoy/v3/route.go writes num_retries only above 0 at v1.33.6); " +
				"a release after 1.33 is assumed to have the fix"}},
	}

	// TraefikIOGroup: Traefik reads its resources of the API group
	// traefik.io.
	TraefikIOGroup = &Change{
		ID: "traefik-io-group", Kind: Added,
		Subject: "the API group traefik.io",
		Before:  "not read: the resources are traefik.containo.us's",
		After:   "read",
		Names:   []string{"apiVersion"},
		Releases: []Release{{Product: model.Traefik, Since: model.Version{Major: 2, Minor: 10},
			Source: "traefik/traefik pkg/provider/kubernetes/crd at v2.10.0 reads traefik.io (docs/kubernetes.md)"}},
	}

	// TraefikContainoUsRemoved: Traefik no longer reads traefik.containo.us.
	TraefikContainoUsRemoved = &Change{
		ID: "traefik-containo-us-group", Kind: Removed,
		Subject: "the API group traefik.containo.us",
		Before:  "read",
		After:   "not read: the resources are ignored",
		Keep:    "apiVersion: traefik.io/v1alpha1",
		Names:   []string{"apiVersion"},
		Releases: []Release{{Product: model.Traefik, Since: model.Version{Major: 3},
			Source: "traefik/traefik pkg/provider/kubernetes/crd reads traefik.containo.us up to v2.11, not at v3.0.0 (docs/kubernetes.md)"}},
	}

	// TraefikRetryStatus: the retry middleware's status,
	// retryNonIdempotentMethod, disableRetryOnNetworkError, timeout and
	// maxRequestBodyBytes.
	TraefikRetryStatus = &Change{
		ID: "traefik-retry-status", Kind: Added,
		Subject: "the retry middleware's status, retryNonIdempotentMethod, disableRetryOnNetworkError, timeout and maxRequestBodyBytes",
		Before:  "pruned by the API server: the middleware retries network errors only, before anything of the request was written",
		After:   "a status is retried too (POST, PATCH and LOCK only with retryNonIdempotentMethod)",
		Names:   []string{"retry.status", "retry.retryNonIdempotentMethod", "retry.disableRetryOnNetworkError", "retry.timeout", "retry.maxRequestBodyBytes"},
		Releases: []Release{{Product: model.Traefik, Since: model.Version{Major: 3, Minor: 7},
			Source: "traefik/traefik pkg/config/dynamic/middlewares.go and pkg/middlewares/retry/retry.go at v3.7.0 and v3.7.9 (:101-174), absent at v3.6.0"}},
	}
)

// TraefikContainoUsLast is the newest Traefik release that reads
// traefik.containo.us, the release such a resource is read for when no
// target is named.
var TraefikContainoUsLast = model.Version{Major: 2, Minor: 11}

// table is every change, nginx's first.
var table = []*Change{
	UpstreamKeepalive, ProxyHTTPVersion, ProxyConnectionHeader, KeepaliveLocal, ProxyHTTP2, ResolverConf,
	SSLDirective, HTTP2Directive, ListenHTTP2, HTTP2Push, UpstreamResolve, AddHeaderInherit,
	ResetBeforeRequest, H1SafeDrain, V2Upgraded,
	IstioNo503Retry, IstioHTTPRouteRetry, IstioRetryBudget, NginxIncNextUpstream,
	GatewayMergeType, GatewayClientIdle, GatewayDropsRouteTimeouts,
	VSMultipleRegexRoutes, ContourMinusOneOff, TraefikIOGroup, TraefikContainoUsRemoved, TraefikRetryStatus,
}
