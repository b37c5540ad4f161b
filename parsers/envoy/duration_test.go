package envoy

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
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
		if l.IdleTimeout.Value < 0 || !l.IdleTimeout.Default() {
			t.Errorf("listener idle timeout %+v", l.IdleTimeout)
		}
	}
}

// parseDurationJSON accepts and reads what protojson accepts and reads,
// over hand-picked edge cases and every short string of the characters a
// duration is written with.
func TestParseDurationJSONMatchesProtojson(t *testing.T) {
	cases := []string{
		"", "s", "1s", "0s", "00s", "01s", "-0s", "+1s", "-1s", "1.s", ".1s", "-.1s", "+.5s", ".s", "-.s", "-s", "+s",
		"1.5.5s", "+-1s", "1.123456789s", "1.1234567890s", "1.000000000s", "315576000000s", "315576000001s",
		"-315576000000.999999999s", "-315576000001s", "9223372036854775807s", "9223372036854775808s", "1 s", " 1s",
		"1e3s", "0x10s", "1m", "1", "1ss", "١s",
	}
	const alphabet = "0123456789.+-s"
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		cases = append(cases, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+string(c), n-1)
		}
	}
	gen("", 4)
	for _, in := range cases {
		quoted, _ := json.Marshal(in)
		var want durationpb.Duration
		wantErr := protojson.Unmarshal(quoted, &want)
		secs, nanos, ok := parseDurationJSON(in)
		switch {
		case ok != (wantErr == nil):
			t.Errorf("%q: parseDurationJSON ok=%v, protojson error %v", in, ok, wantErr)
		case ok && (secs != want.GetSeconds() || nanos != want.GetNanos()):
			t.Errorf("%q: %d s %d ns, protojson %d s %d ns", in, secs, nanos, want.GetSeconds(), want.GetNanos())
		}
	}
	t.Logf("%d strings", len(cases))
}
