package gen

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Large inputs: files near the size limits whose cost must grow in a
// straight line with their size. Each writer takes a count and writes a
// valid configuration of that count's size to w; docs/benchmarks.md
// records what proxylint takes on the full sizes ("Large inputs").

// NginxLocations writes one nginx configuration of one server with n
// locations, each proxied to a named upstream: 48 MB at n = 430,000.
func NginxLocations(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, "events {}\nhttp {\n    upstream app {\n        server 127.0.0.1:8000;\n        keepalive 16;\n    }\n    server {\n        listen 80;\n")
	for i := range n {
		fmt.Fprintf(b, "        location /p%07d/ {\n            proxy_pass http://app;\n            proxy_read_timeout %ds;\n        }\n", i, 5+i%50)
	}
	fmt.Fprint(b, "    }\n}\n")
	return b.Flush()
}

// NginxMap writes one nginx configuration whose map block holds n
// entries: 48 MB at n = 1,600,000.
func NginxMap(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, "events {}\nhttp {\n    map $uri $backend {\n        default app;\n")
	for i := range n {
		fmt.Fprintf(b, "        /item/%09d/ app%d;\n", i, i%10)
	}
	fmt.Fprint(b, "    }\n    server {\n        listen 80;\n        location / {\n            return 204;\n        }\n    }\n}\n")
	return b.Flush()
}

// NginxLongDirective writes one nginx configuration holding a directive of
// one line with n arguments (server_name), about 11 bytes each: 40 MB at
// n = 3,700,000.
func NginxLongDirective(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, "events {}\nhttp {\n    server {\n        listen 80;\n        server_name")
	for i := range n {
		fmt.Fprintf(b, " h%07d.ex", i)
	}
	fmt.Fprint(b, ";\n        location / {\n            return 204;\n        }\n    }\n}\n")
	return b.Flush()
}

// EnvoyRoutesJSON writes an Envoy bootstrap in JSON with one listener whose
// route configuration holds n routes to one cluster: 54 MB at n =
// 1,000,000.
func EnvoyRoutesJSON(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `{"static_resources":{"listeners":[{"name":"l","address":{"socket_address":{"address":"0.0.0.0","port_value":10000}},"filter_chains":[{"filters":[{"name":"envoy.filters.network.http_connection_manager","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","stat_prefix":"l","http_filters":[{"name":"envoy.filters.http.router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],"route_config":{"name":"r","virtual_hosts":[{"name":"vh","domains":["*"],"routes":[`)
	for i := range n {
		if i > 0 {
			fmt.Fprint(b, ",")
		}
		fmt.Fprintf(b, `{"match":{"prefix":"/r%07d"},"route":{"cluster":"c"}}`, i)
	}
	fmt.Fprint(b, `]}]}}}]}]}],"clusters":[{"name":"c","type":"STATIC","connect_timeout":"1s","load_assignment":{"cluster_name":"c","endpoints":[{"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":8000}}}}]}]}}]}}`+"\n")
	return b.Flush()
}

// KubeServices writes n Kubernetes Services as documents of one YAML
// stream: 13 MB at n = 100,000.
func KubeServices(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	for i := range n {
		fmt.Fprintf(b, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%06d\nspec:\n  selector:\n    app: a%06d\n  ports:\n  - port: 80\n", i, i)
	}
	return b.Flush()
}

// EnvoyTypedStruct writes an Envoy bootstrap whose HTTP filter is
// configured by a TypedStruct (a type the schema does not hold) of n keys:
// 24 MB at n = 1,000,000.
func EnvoyTypedStruct(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `{"static_resources":{"listeners":[{"name":"l","address":{"socket_address":{"address":"0.0.0.0","port_value":10000}},"filter_chains":[{"filters":[{"name":"envoy.filters.network.http_connection_manager","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","stat_prefix":"l","http_filters":[{"name":"example.filter","typed_config":{"@type":"type.googleapis.com/xds.type.v3.TypedStruct","type_url":"type.googleapis.com/example.Filter","value":{`)
	for i := range n {
		if i > 0 {
			fmt.Fprint(b, ",")
		}
		fmt.Fprintf(b, `"k%07d":%d`, i, i%10)
	}
	fmt.Fprint(b, `}}},{"name":"envoy.filters.http.router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],"route_config":{"name":"r","virtual_hosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":"/"},"route":{"cluster":"c"}}]}]}}}]}]}],"clusters":[{"name":"c","type":"STATIC","connect_timeout":"1s","load_assignment":{"cluster_name":"c","endpoints":[{"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":8000}}}}]}]}}]}}`+"\n")
	return b.Flush()
}

// EnvoyLongTypeURL writes an Envoy bootstrap whose HTTP filter's "@type"
// names a type of n bytes that no schema holds.
func EnvoyLongTypeURL(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `{"static_resources":{"listeners":[{"name":"l","address":{"socket_address":{"address":"0.0.0.0","port_value":10000}},"filter_chains":[{"filters":[{"name":"envoy.filters.network.http_connection_manager","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","stat_prefix":"l","http_filters":[{"name":"example.filter","typed_config":{"@type":"type.googleapis.com/example.`)
	fmt.Fprint(b, strings.Repeat("x", n))
	fmt.Fprint(b, `"}},{"name":"envoy.filters.http.router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],"route_config":{"name":"r","virtual_hosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":"/"},"route":{"cluster":"c"}}]}]}}}]}]}],"clusters":[{"name":"c","type":"STATIC","connect_timeout":"1s","load_assignment":{"cluster_name":"c","endpoints":[{"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":8000}}}}]}]}}]}}`+"\n")
	return b.Flush()
}

// NestedYAML writes a YAML document of n nested flow mappings.
func NestedYAML(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, "static_resources: ")
	fmt.Fprint(b, strings.Repeat("{a: ", n))
	fmt.Fprint(b, "1")
	fmt.Fprint(b, strings.Repeat("}", n))
	fmt.Fprint(b, "\n")
	return b.Flush()
}

// Large names the writers, for "go run ./bench large".
var Large = map[string]struct {
	Write func(io.Writer, int) error
	N     int
	Name  string
}{
	"nginx-locations": {NginxLocations, 430_000, "nginx.conf"},
	"nginx-map":       {NginxMap, 1_600_000, "nginx.conf"},
	"nginx-directive": {NginxLongDirective, 3_700_000, "nginx.conf"},
	"envoy-routes":    {EnvoyRoutesJSON, 1_000_000, "envoy.json"},
	"kube-services":   {KubeServices, 100_000, "services.yaml"},
	"typed-struct":    {EnvoyTypedStruct, 1_000_000, "envoy.json"},
	"long-type":       {EnvoyLongTypeURL, 10 << 20, "envoy.json"},
	"nested-yaml":     {NestedYAML, 5_000, "deep.yaml"},
}

// KubeDeployment writes a cluster's manifests of n objects as documents of
// one YAML stream, in units of four that each route to a workload of their
// own: an ingress-nginx Ingress and a Gateway API HTTPRoute (bound to one
// Gateway) in front of a Service that selects a Deployment's pods. Every
// unit has the same mix of settings (timeouts, retries on some), so the
// work per object stays the same as n grows: 1.9 MB at n = 10,000.
func KubeDeployment(w io.Writer, n int) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: public
  namespace: shop
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP}
`)
	for i := range max(n/4, 1) {
		retry := ""
		if i%3 == 0 {
			retry = "\n    retry:\n      attempts: 2\n      codes: [503]"
		}
		fmt.Fprintf(b, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-%05[1]d
  namespace: shop
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "%[2]d"
    nginx.ingress.kubernetes.io/proxy-next-upstream-tries: "%[3]d"
spec:
  ingressClassName: nginx
  rules:
  - host: app-%05[1]d.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: app-%05[1]d
            port: {number: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: app-%05[1]d
  namespace: shop
spec:
  parentRefs:
  - name: public
  hostnames: [api-%05[1]d.example.com]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /v1}
    backendRefs:
    - name: app-%05[1]d
      port: 80
    timeouts:
      request: %[4]ds%[5]s
---
apiVersion: v1
kind: Service
metadata:
  name: app-%05[1]d
  namespace: shop
spec:
  selector:
    app: app-%05[1]d
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%05[1]d
  namespace: shop
spec:
  replicas: %[6]d
  selector:
    matchLabels:
      app: app-%05[1]d
  template:
    metadata:
      labels:
        app: app-%05[1]d
    spec:
      containers:
      - name: app
        image: example/app:1
        ports:
        - containerPort: 8080
`, i, 30+i%60, 1+i%3, 10+i%20, retry, 1+i%4)
	}
	return b.Flush()
}
