package envoy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
)

// decodeCluster reads src (one YAML cluster) as Envoy would, returning the
// cluster and the problems as "line:col message".
func decodeCluster(t *testing.T, src string) (*clusterv3.Cluster, []string) {
	t.Helper()
	docs, _, err := readTree("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, probs, _ := decode(docs[0], (&clusterv3.Cluster{}).ProtoReflect().Type())
	var out []string
	for _, p := range probs {
		out = append(out, fmt.Sprintf("%d:%d %s", p.n.line, p.n.col, p.msg))
	}
	c, _ := m.(*clusterv3.Cluster)
	return c, out
}

// Envoy's YAML reader takes yes/no/on/off/y/n as booleans in lower case,
// UPPER case or Capitalised, wherever they stand.
func TestYAMLBooleansAsEnvoyReadsThem(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{{"yes", true}, {"Yes", true}, {"YES", true}, {"on", true}, {"ON", true}, {"y", true}, {"Y", true},
		{"no", false}, {"Off", false}, {"n", false}, {"True", true}, {"FALSE", false}} {
		c, probs := decodeCluster(t, "name: c\nignore_health_on_host_removal: "+tc.text+"\n")
		if len(probs) != 0 || c.GetIgnoreHealthOnHostRemoval() != tc.want {
			t.Errorf("ignore_health_on_host_removal: %s: got %v %v, want %v", tc.text, c.GetIgnoreHealthOnHostRemoval(), probs, tc.want)
		}
	}
	// Mixed case is not a boolean but a string, which a bool field refuses.
	_, probs := decodeCluster(t, "name: c\nignore_health_on_host_removal: yES\n")
	if want := []string{`2:32 ignore_health_on_host_removal: invalid value for bool field ignoreHealthOnHostRemoval: "yES"`}; strings.Join(probs, "|") != strings.Join(want, "|") {
		t.Errorf("yES: %q, want %q", probs, want)
	}
}

// The same words are booleans in a string field, which Envoy refuses; quoted
// they are strings.
func TestYAMLBooleanInStringField(t *testing.T) {
	_, probs := decodeCluster(t, "name: on\n")
	if want := "1:7 invalid value for string field name: true"; strings.Join(probs, "|") != want {
		t.Errorf("got %q, want %q", probs, want)
	}
	c, probs := decodeCluster(t, "name: 'on'\n")
	if len(probs) != 0 || c.GetName() != "on" {
		t.Errorf("quoted: %q %v", c.GetName(), probs)
	}
	c, probs = decodeCluster(t, "name: |\n  yes\n")
	if len(probs) != 0 || c.GetName() != "yes\n" {
		t.Errorf("literal block: %q %v", c.GetName(), probs)
	}
}

// Integers are read by a C++ stream with no base set: 0x is hexadecimal, a
// leading 0 octal; Go's 0o, 0b and digit separators are not integers.
func TestYAMLIntegersAsEnvoyReadsThem(t *testing.T) {
	for _, tc := range []struct {
		text string
		want uint32
	}{{"0x50", 80}, {"0X50", 80}, {"0120", 80}, {"80", 80}, {"+80", 80}, {"4294967295", 4294967295}} {
		c, probs := decodeCluster(t, "name: c\nper_connection_buffer_limit_bytes: "+tc.text+"\n")
		if len(probs) != 0 || c.GetPerConnectionBufferLimitBytes().GetValue() != tc.want {
			t.Errorf("%s: got %d %v, want %d", tc.text, c.GetPerConnectionBufferLimitBytes().GetValue(), probs, tc.want)
		}
	}
	for _, text := range []string{"1_000", "0o17", "0b101", "08"} {
		_, probs := decodeCluster(t, "name: c\nper_connection_buffer_limit_bytes: "+text+"\n")
		want := fmt.Sprintf(`2:36 per_connection_buffer_limit_bytes: invalid value for uint32 field value: %q`, text)
		if strings.Join(probs, "|") != want {
			t.Errorf("%s: got %q, want %q", text, probs, want)
		}
	}
}

// Anything else unquoted is the text as written: a float-looking value is
// a valid string, and a valid number where a number is expected.
func TestYAMLFloatsAreStrings(t *testing.T) {
	for _, text := range []string{"1.0", "1e3", "2.5.1"} {
		c, probs := decodeCluster(t, "name: "+text+"\n")
		if len(probs) != 0 || c.GetName() != text {
			t.Errorf("name: %s: got %q %v", text, c.GetName(), probs)
		}
	}
	c, probs := decodeCluster(t, "name: c\nper_connection_buffer_limit_bytes: 1.0\n")
	if len(probs) != 0 || c.GetPerConnectionBufferLimitBytes().GetValue() != 1 {
		t.Errorf("1.0 as uint32: %v %v", c.GetPerConnectionBufferLimitBytes(), probs)
	}
	// A plain integer is a number, which a string field refuses.
	_, probs = decodeCluster(t, "name: 8080\n")
	if want := "1:7 invalid value for string field name: 8080"; strings.Join(probs, "|") != want {
		t.Errorf("got %q, want %q", probs, want)
	}
}

// An object or a list where a scalar belongs is named as such, not by its
// first character.
func TestObjectWhereAScalarBelongs(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"{}", "2:32 ignore_health_on_host_removal: invalid value for bool field ignoreHealthOnHostRemoval: an object, where true or false belongs"},
		{"[true]", "2:32 ignore_health_on_host_removal: invalid value for bool field ignoreHealthOnHostRemoval: a list, where true or false belongs"},
		{"{a: 1}", "2:32 ignore_health_on_host_removal: invalid value for bool field ignoreHealthOnHostRemoval: an object, where true or false belongs"},
	} {
		_, probs := decodeCluster(t, "name: c\nignore_health_on_host_removal: "+c.value+"\n")
		if strings.Join(probs, "|") != c.want {
			t.Errorf("%s: got %q, want %q", c.value, probs, c.want)
		}
	}
	_, probs := decodeCluster(t, "name: c\nper_connection_buffer_limit_bytes: {value: [1]}\n")
	if want := "2:36 per_connection_buffer_limit_bytes: invalid value for google.protobuf.UInt32Value written as an object of its fields"; strings.Join(probs, "|") != want {
		t.Errorf("got %q, want %q", probs, want)
	}
}

// Envoy's reader takes a Duration, a Timestamp, a FieldMask, a ListValue or
// a wrapper written as an object of its fields (legacy.go): protobuf's
// parser runs with its legacy syntax on. Envoy then refuses a negative or
// out-of-range Duration.
func TestWellKnownTypesAsObjects(t *testing.T) {
	c, probs := decodeCluster(t, "name: c\nconnect_timeout: {seconds: 1, nanos: 500000000}\nper_connection_buffer_limit_bytes: {value: 7}\nupstream_connection_options: {tcp_keepalive: {keepalive_probes: {}}}\n")
	probes := c.GetUpstreamConnectionOptions().GetTcpKeepalive().GetKeepaliveProbes()
	if len(probs) != 0 || c.GetConnectTimeout().AsDuration() != 1500*time.Millisecond || c.GetPerConnectionBufferLimitBytes().GetValue() != 7 ||
		probes == nil || probes.GetValue() != 0 {
		t.Errorf("got %v %v %v %v", c.GetConnectTimeout(), c.GetPerConnectionBufferLimitBytes(), probes, probs)
	}
	c, probs = decodeCluster(t, `{"name": "c", "connectTimeout": {"seconds": "2"}}`)
	if len(probs) != 0 || c.GetConnectTimeout().AsDuration() != 2*time.Second {
		t.Errorf("JSON: got %v %v", c.GetConnectTimeout(), probs)
	}
	for _, tc := range []struct{ value, want string }{
		{"{seconds: -1}", "2:18 connect_timeout: negative duration {seconds: -1, nanos: 0}; Envoy refuses durations below zero (Expected positive duration)"},
		{"{seconds: 1, nanos: -5}", "2:18 connect_timeout: negative duration {seconds: 1, nanos: -5}; Envoy refuses durations below zero (Expected positive duration)"},
		{"{nanos: 1000000000}", "2:18 connect_timeout: duration {seconds: 0, nanos: 1000000000} out of range: nanos must be below 1,000,000,000 and seconds at most 315576000000 (Duration out-of-range)"},
		{"{seconds: 1, milliseconds: 5}", `2:31 connect_timeout: unknown field "milliseconds" in google.protobuf.Duration`},
	} {
		_, probs := decodeCluster(t, "name: c\nconnect_timeout: "+tc.value+"\n")
		if strings.Join(probs, "|") != tc.want {
			t.Errorf("%s: got %q, want %q", tc.value, probs, tc.want)
		}
	}
}
