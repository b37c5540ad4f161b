package envoy

import (
	"strings"
	"testing"
)

// Envoy refuses negative durations; zero written with a sign is zero.
func TestNegativeDurations(t *testing.T) {
	src := strings.NewReplacer("IDLE", "-30s", "TIMEOUT", "-0.5s", "CONNECT", "-0s").Replace(`static_resources:
  listeners:
  - name: l
    address: { socket_address: { address: 0.0.0.0, port_value: 80 } }
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
          common_http_protocol_options: { idle_timeout: IDLE }
          http_filters:
          - name: envoy.filters.http.router
            typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router }
          route_config:
            virtual_hosts:
            - name: v
              domains: ["*"]
              routes:
              - match: { prefix: "/" }
                route: { cluster: c, timeout: TIMEOUT, idle_timeout: "-0.000s" }
  clusters:
  - name: c
    connect_timeout: 1s
    type: STATIC
`)
	r := loadString(t, "neg.yaml", src)
	wantDiag(t, r, 11, 57, CodeInvalid, `idle_timeout: negative duration "-30s"; Envoy refuses durations below zero`)
	wantDiag(t, r, 21, 47, CodeInvalid, `timeout: negative duration "-0.5s"`)
	if len(r.Diagnostics) != 2 {
		t.Fatalf("want 2 diagnostics, got:\n  %s", strings.Join(diagStrings(r), "\n  "))
	}
	// The refused values are left out: the model has Envoy's defaults.
	p := onlyProxy(t, r)
	for _, l := range p.Listeners {
		if l.IdleTimeout.Value < 0 || !l.IdleTimeout.Default {
			t.Errorf("listener idle timeout %+v", l.IdleTimeout)
		}
	}
}
