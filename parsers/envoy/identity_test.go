package envoy

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Two retry policies have the same identity exactly when their
// deterministic wire encodings are equal.
func TestMessageIdentityMatchesMarshal(t *testing.T) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName("envoy.config.route.v3.RetryPolicy")
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{
		"{}",
		"retry_on: 5xx",
		"retry_on: 5xx\nnum_retries: 3",
		"num_retries: 3\nretry_on: 5xx",
		"num_retries: 3\nretry_on: 5xx\nper_try_timeout: 1s",
		"num_retries: 3\nretry_on: 5xx\nper_try_timeout: 1.5s",
		"num_retries: 3\nretry_on: 5xx\nper_try_timeout: 1.5s\nretry_back_off: {base_interval: 0.1s}",
		"num_retries: 3\nretry_on: 5xx\nretry_back_off: {base_interval: 0.1s, max_interval: 1s}",
		"num_retries: 3\nretry_on: 5xx\nretry_back_off: {max_interval: 1s, base_interval: 0.1s}",
		"retriable_status_codes: [503, 504]",
		"retriable_status_codes: [504, 503]",
		"retriable_status_codes: [503]",
		"retriable_request_headers: [{name: ':method', string_match: {exact: GET}}]",
		"retriable_request_headers: [{name: ':method', string_match: {exact: GET}}, {name: x, present_match: true}]",
		"retriable_request_headers: [{name: ':method', string_match: {exact: POST}}]",
		"retriable_headers: [{name: x, present_match: false}]",
		"retriable_headers: [{name: x}]",
		"retry_host_predicate: [{name: envoy.retry_host_predicates.previous_hosts, typed_config: {'@type': type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate}}]",
		"retry_host_predicate: [{name: envoy.retry_host_predicates.previous_hosts}]",
		"host_selection_retry_max_attempts: 5",
		"host_selection_retry_max_attempts: -5",
		"rate_limited_retry_back_off: {reset_headers: [{name: a, format: UNIX_TIMESTAMP}, {name: b}], max_interval: 300s}",
		"rate_limited_retry_back_off: {reset_headers: [{name: b}, {name: a, format: UNIX_TIMESTAMP}], max_interval: 300s}",
		"retry_on: 'gateway-error,connect-failure'",
		"retry_on: 'connect-failure,gateway-error'",
	}
	type policy struct {
		src   string
		wire  []byte
		ident string
	}
	var ps []policy
	for _, src := range srcs {
		docs, _, err := readTree("p.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		m, ok := decodeDirect(docs[0], mt)
		if !ok {
			t.Fatalf("%q: not read directly", src)
		}
		writePayloads(m.ProtoReflect())
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		id, ok := messageIdentity(m.ProtoReflect())
		if !ok {
			t.Fatalf("%q: no identity", src)
		}
		ps = append(ps, policy{src, wire, id})
	}
	for i, a := range ps {
		for _, b := range ps[i:] {
			if sameWire, sameID := bytes.Equal(a.wire, b.wire), a.ident == b.ident; sameWire != sameID {
				t.Errorf("%q and %q: equal encodings %v, equal identities %v", a.src, b.src, sameWire, sameID)
			}
		}
	}
}
