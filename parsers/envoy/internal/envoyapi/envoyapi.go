// Package envoyapi links the generated Go packages of the part of Envoy's
// API that proxylint understands: the resources its Envoy loader reads,
// and the extension types configurations use most. Linking a package
// registers its descriptors, which is what this package is for.
//
// The program itself never imports it: registering these descriptors at
// start-up would cost every run, nginx runs included, more than linting a
// file takes (TestEnvoyAPIIsNotLinked in cmd/proxylint). Two things do:
//   - the schema generator (parsers/envoy/_gen/schema), which writes the
//     descriptors this package registers into the file the loader embeds
//     and builds its messages from;
//   - the tests, which compare the loader with the generated code: the
//     embedded descriptors with the registered ones, and the schema's
//     rules as parsers/envoy/internal/pgv checks them with the generated
//     ValidateAll methods.
//
// To understand one more extension: import its package here, run
// `go run ./_gen/schema` in parsers/envoy, and commit both.
package envoyapi

import (
	// The resources the loader reads (build.go, checks.go, shape.go and
	// behaviour.go read them by field name).
	_ "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	// The extension types configurations use most: the
	// HTTP connection manager and router, the common HTTP filters (CORS,
	// fault, health check, local rate limit, Lua, gRPC-Web, compressor),
	// TCP proxy, the upstream HTTP protocol options, the TLS and raw
	// buffer transport sockets, the aggregate cluster, the TLS inspector
	// and the file and standard-stream access loggers.
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
