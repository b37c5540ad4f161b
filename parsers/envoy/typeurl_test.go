package envoy

import (
	"slices"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// wantExactly checks the whole list of diagnostics, in order, each as
// "line:col code message".
func wantExactly(t *testing.T, r Result, want ...string) {
	t.Helper()
	got := diagStrings(r)
	if !slices.Equal(got, want) {
		t.Fatalf("diagnostics:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func listenerWith(hcmType, routerType string) string {
	return `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/` + hcmType + `
          stat_prefix: x
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/` + routerType + `
          route_config: {name: r}
`
}

func TestRemovedV2TypeIsAnError(t *testing.T) {
	r := loadString(t, "v2.yaml", listenerWith(
		"envoy.config.filter.network.http_connection_manager.v2.HttpConnectionManager",
		"envoy.extensions.filters.http.router.v3.Router"))
	wantExactly(t, r,
		`9:20 envoy-invalid envoy.config.filter.network.http_connection_manager.v2.HttpConnectionManager is a message of Envoy's v2 API, which Envoy no longer reads; did you mean "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"?`)
	if !r.Diagnostics[0].Fatal {
		t.Error("a removed type leaves its listener unread: the diagnostic must be fatal")
	}
}

func TestV2TypeWithoutRecordedSuccessor(t *testing.T) {
	// The v2 router has a v3 successor with the same message name.
	r := loadString(t, "v2router.yaml", listenerWith(
		"envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
		"envoy.config.filter.http.router.v2.Router"))
	wantExactly(t, r,
		`14:24 envoy-invalid envoy.config.filter.http.router.v2.Router is a message of Envoy's v2 API, which Envoy no longer reads; did you mean "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"?`)
}

func TestMisspeltV3TypeIsAnError(t *testing.T) {
	r := loadString(t, "typo.yaml", listenerWith(
		"envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
		"envoy.extensions.filters.http.router.v3.Routr"))
	wantExactly(t, r,
		`14:24 envoy-invalid unknown type envoy.extensions.filters.http.router.v3.Routr: no Envoy build reads it; did you mean "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"?`)
}

func TestV2EraActiveTypesAreRefusedSince120(t *testing.T) {
	// fixed_heap v2alpha was an active package until its factory took the
	// v3 message; the v2-to-v3 upgrade of typed configs went with the API
	// type oracle in 1.20 (envoyproxy/envoy#17724), so current Envoy
	// refuses it. golang is a contrib extension: Envoy's own, only not
	// linked here, so a note.
	src := `overload_manager:
  resource_monitors:
  - name: envoy.resource_monitors.fixed_heap
    typed_config:
      "@type": type.googleapis.com/envoy.config.resource_monitor.fixed_heap.v2alpha.FixedHeapConfig
      max_heap_size_bytes: 1073741824
static_resources:
  clusters:
  - name: c
    filters:
    - name: golang
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.golang.v3alpha.Config
`
	r := loadString(t, "active.yaml", src)
	wantExactly(t, r,
		`5:16 envoy-invalid envoy.config.resource_monitor.fixed_heap.v2alpha.FixedHeapConfig is a message of Envoy's v2 API, which Envoy no longer reads (since 1.20); did you mean "type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig"?`,
		`13:18 envoy-unknown-extension extension not understood: envoy.extensions.filters.network.golang.v3alpha.Config; its settings are kept but not checked`)
	// For the releases that upgraded it, it is a type proxylint does
	// not read.
	old, err := model.ParseTarget("envoy:1.19")
	if err != nil {
		t.Fatal(err)
	}
	r = LoadBytes("active.yaml", []byte(src), Options{Target: old})
	wantExactly(t, r,
		`5:16 envoy-unknown-extension extension not understood: envoy.config.resource_monitor.fixed_heap.v2alpha.FixedHeapConfig; its settings are kept but not checked`,
		`13:18 envoy-unknown-extension extension not understood: envoy.extensions.filters.network.golang.v3alpha.Config; its settings are kept but not checked`)
}

// A name in a package Envoy never had is a third-party extension, whatever
// version its package names: solo-io's transformation filter lives in
// envoy.api.v2.filter.http, which is not Envoy's v2 API. A misspelt
// message of a package Envoy had is refused.
func TestThirdPartyV2NamesAreExtensions(t *testing.T) {
	src := strings.Replace(listenerWith(
		"envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
		"envoy.extensions.filters.http.router.v3.Router"),
		"          - name: envoy.filters.http.router\n", `          - name: io.solo.transformation
            typed_config:
              "@type": type.googleapis.com/envoy.api.v2.filter.http.FilterTransformations
              transformations: []
          - name: envoy.filters.http.router
`, 1)
	r := loadString(t, "gloo.yaml", src)
	wantExactly(t, r,
		`14:24 envoy-unknown-extension extension not understood: envoy.api.v2.filter.http.FilterTransformations; its settings are kept but not checked`)
	r = loadString(t, "typo.yaml", strings.Replace(src, "envoy.api.v2.filter.http.FilterTransformations", "envoy.api.v2.Clustr", 1))
	wantExactly(t, r,
		`14:24 envoy-invalid envoy.api.v2.Clustr is a message of Envoy's v2 API, which Envoy no longer reads; did you mean "type.googleapis.com/envoy.config.cluster.v3.Cluster"?`)
}

func TestOneNotePerUnknownExtension(t *testing.T) {
	filter := `          - name: my.filter
            typed_config:
              "@type": type.googleapis.com/acme.filters.Magic
              anything: [1, 2]
`
	src := strings.Replace(listenerWith(
		"envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
		"envoy.extensions.filters.http.router.v3.Router"),
		"          - name: envoy.filters.http.router\n", filter+filter+filter+"          - name: envoy.filters.http.router\n", 1)
	src += `  - name: l2
    address: {socket_address: {address: 0.0.0.0, port_value: 81}}
    listener_filters:
    - name: envoy.filters.listener.local_ratelimit
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.listener.local_ratelimit.v3.LocalRateLimit
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: y2
          http_filters:
` + filter + `          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config: {name: r2}
`
	r := loadString(t, "many.yaml", src)
	wantExactly(t, r,
		`14:24 envoy-unknown-extension extension not understood: acme.filters.Magic; its settings are kept but not checked (used 4 times, at lines 14, 18, 22, 43)`,
		`33:18 envoy-unknown-extension extension not understood: envoy.extensions.filters.listener.local_ratelimit.v3.LocalRateLimit; its settings are kept but not checked`)
}

// The OpenTelemetry access logger is Envoy's, though its messages are not
// in the generated list: a note, not a misspelling.
func TestOpenTelemetryLoggerIsEnvoys(t *testing.T) {
	src := `static_resources:
  clusters:
  - name: c
    connect_timeout: 1s
stats_sinks:
- name: envoy.stat_sinks.open_telemetry
  typed_config:
    "@type": type.googleapis.com/envoy.extensions.stat_sinks.open_telemetry.v3.SinkConfig
`
	r := loadString(t, "otel.yaml", src)
	wantExactly(t, r,
		`8:14 envoy-unknown-extension extension not understood: envoy.extensions.stat_sinks.open_telemetry.v3.SinkConfig; its settings are kept but not checked`)
}

// removedTypes is searched by halves: it must be sorted, without repeats,
// and every entry found.
func TestRemovedTypesSorted(t *testing.T) {
	if len(removedTypes) < 300 {
		t.Fatalf("only %d removed types", len(removedTypes))
	}
	for i, r := range removedTypes {
		if i > 0 && removedTypes[i-1].old >= r.old {
			t.Errorf("%q before %q", removedTypes[i-1].old, r.old)
		}
		if v3, ok := removedType(r.old); !ok || v3 != r.v3 {
			t.Errorf("removedType(%q) = %q, %v; want %q", r.old, v3, ok, r.v3)
		}
	}
	if _, ok := removedType("envoy.api.v2.NoSuchMessage"); ok {
		t.Error("a name not in the table was found")
	}
}
