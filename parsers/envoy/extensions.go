package envoy

// The extension types proxylint understands. Linking a package registers
// its messages, so "@type" values naming them are decoded and validated;
// any other type is kept as a TypedStruct and reported as a note.
//
// Every package linked costs start-up time on every run of proxylint,
// nginx runs included: registering the descriptors of go-control-plane's core API
// (core, route, listener, cluster, endpoint, the HTTP connection manager)
// is most of the cost of linking Envoy at all, and each extension adds to
// it. So the list holds what configurations use most, and no more: the
// HTTP connection manager and router, the common HTTP filters (CORS,
// fault, health check, local rate limit, Lua, gRPC-Web, compressor), TCP
// proxy, the upstream HTTP protocol options, the TLS and raw buffer
// transport sockets, the aggregate cluster, the TLS inspector and the
// file and standard-stream access loggers.
import (
	_ "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3" // the resources the loader reads
	_ "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	_ "github.com/cncf/xds/go/udpa/type/v1"                                              // udpa.type.v1.TypedStruct
	_ "github.com/cncf/xds/go/xds/type/v3"                                               // xds.type.v3.TypedStruct
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"   // file access log
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/stream/v3" // stdout/stderr access log
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/aggregate/v3"    // aggregate cluster
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/gzip/compressor/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/compressor/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/grpc_web/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/tls_inspector/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/raw_buffer/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
)
