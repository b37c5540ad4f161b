package envoy

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/proxylint/proxylint/bench/gen"
)

// TestMain reads every resource of every test both ways, directly and
// through the emitter and protojson, and fails the run if the direct
// reader accepted one that protojson reads differently or refuses.
// Benchmarks time the direct reader alone.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		crossCheck.on = true
	}
	code := m.Run()
	if len(crossCheck.mismatches) > 0 {
		fmt.Fprintf(os.Stderr, "the direct reader and protojson differ on %d resources:\n  %s\n",
			len(crossCheck.mismatches), strings.Join(crossCheck.mismatches, "\n  "))
		code = 1
	}
	os.Exit(code)
}

// directRoots reads src and compares the two readers on every resource in
// it; it returns how many resources there were and how many the direct
// reader took. A resource protojson reads without an error or a note must
// be one the direct reader takes.
func directRoots(t *testing.T, name string, src []byte) (roots, direct int) {
	t.Helper()
	docs, _, err := readTree(name, src)
	if err != nil {
		return 0, 0
	}
	for _, doc := range docs {
		rs, _ := classify(doc)
		for _, r := range rs {
			m, probs, unknown, ok, mismatch := compareDirect(r.n, messageType(r.mt), r.inDump, r.version)
			if mismatch != "" {
				t.Errorf("%s: %s", name, mismatch)
			}
			if !ok && m != nil && len(probs) == 0 && len(unknown) == 0 {
				t.Errorf("%s:%d:%d: protojson reads this %s cleanly, the direct reader does not", name, r.n.line, r.n.col, r.mt)
			}
			roots++
			if ok {
				direct++
			}
		}
	}
	return roots, direct
}

// The direct reader reads every resource of the corpus and the test data
// it accepts exactly as protojson reads the emitter's JSON, and accepts
// every one that reads without an error or a note (the others are those
// with extensions proxylint does not link, and the files Envoy refuses).
func TestDirectMatchesProtojson(t *testing.T) {
	src, err := os.ReadFile("testdata/bootstrap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if roots, direct := directRoots(t, "bootstrap.yaml", src); roots != 1 || direct != 1 {
		t.Errorf("bootstrap.yaml: %d of %d resources read directly, want 1 of 1", direct, roots)
	}
	// Lists long enough to be read side by side (directElems).
	g := gen.EnvoyBootstrap{Listeners: sideBySideItems + 3, RoutesPerListener: sideBySideItems + 1, Clusters: sideBySideItems + 5}.YAML()
	if roots, direct := directRoots(t, "generated.yaml", g); roots != 1 || direct != 1 {
		t.Errorf("generated bootstrap: %d of %d resources read directly, want 1 of 1", direct, roots)
	}
	dir := requireCorpus(t)
	var roots, direct int
	for _, rel := range corpusFiles(t) {
		src, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, tpl := templateAt(rel, src); tpl {
			continue
		}
		r, d := directRoots(t, rel, src)
		roots += r
		direct += d
	}
	t.Logf("corpus: %d of %d resources read directly", direct, roots)
}

// Reading long lists side by side keeps their order: the listeners,
// clusters and routes of a large bootstrap come out as written.
func TestSideBySideKeepsOrder(t *testing.T) {
	g := gen.EnvoyBootstrap{Listeners: 2 * sideBySideItems, RoutesPerListener: sideBySideItems + 1, Clusters: 3 * sideBySideItems}.YAML()
	r := LoadBytes("generated.yaml", g, Options{})
	if len(r.Diagnostics) != 0 || len(r.Proxies) != 1 {
		t.Fatalf("%d proxies, diagnostics %v", len(r.Proxies), diagStrings(r))
	}
	p := r.Proxies[0]
	if len(p.Listeners) != 2*sideBySideItems || len(p.Upstreams) != 3*sideBySideItems {
		t.Fatalf("%d listeners, %d upstreams", len(p.Listeners), len(p.Upstreams))
	}
	last := int32(0)
	for _, l := range p.Listeners {
		if len(l.Routes) != sideBySideItems+1 {
			t.Errorf("%s: %d routes", l.Name, len(l.Routes))
		}
		for _, rt := range l.Routes {
			if rt.Pos.Line <= last {
				t.Fatalf("%s: %s at line %d after line %d", l.Name, rt.Name, rt.Pos.Line, last)
			}
			last = rt.Pos.Line
		}
	}
	last = 0
	for _, u := range p.Upstreams {
		if u.Pos.Line <= last {
			t.Fatalf("cluster %s at line %d after line %d", u.Name, u.Pos.Line, last)
		}
		last = u.Pos.Line
	}
}

// Each case is read both ways as a Cluster; direct says whether the direct
// reader takes it or leaves it to protojson and its error messages.
func TestDirectCases(t *testing.T) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName("envoy.config.cluster.v3.Cluster")
	if err != nil {
		t.Fatal(err)
	}
	const hpo = `typed_extension_protocol_options: {envoy.extensions.upstreams.http.v3.HttpProtocolOptions: {"@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions, explicit_http_config: {http2_protocol_options: {}}}}`
	holdDirectCases(t, mt, []directCase{
		{"name: a\nconnect_timeout: 5s\ntype: STRICT_DNS\n", true},
		{"name: a\ntype: strict_dns\nlb_policy: 1\n", true},
		{"name: a\nconnectTimeout: 0.25s\nperConnectionBufferLimitBytes: 32768\n", true},
		{"name: a\ndns_refresh_rate: null\nconnect_timeout: ~\n", true},
		{"name: a\nmax_requests_per_connection: '100'\n", true},
		{"name: a\nmax_requests_per_connection: 0x10\n", true},
		{"name: a\ncommon_lb_config: {healthy_panic_threshold: {value: 50.5}}\n", true},
		{"name: a\ncommon_lb_config: {healthy_panic_threshold: {value: 1e3}}\n", true},
		{"name: a\nload_assignment: {cluster_name: a, endpoints: {lb_endpoints: {endpoint: {address: {socket_address: {address: h, port_value: 80}}}}}}\n", true},
		{"name: a\nmetadata: {filter_metadata: {a: {k: v, n: 1, b: true, z: null, l: [1, x]}}}\n", true},
		{"name: a\n" + hpo + "\n", true},
		{"name: a\ntransport_socket: {name: t, typed_config: {}}\n", true},
		{`{"name": "a", "connect_timeout": "1s", "per_connection_buffer_limit_bytes": 7, "type": "STATIC"}`, true},
		{"name: a\ncluster_type: {name: c}\n", true},
		// Well-known types written as objects of their fields, as Envoy's
		// reader takes them (legacy.go).
		{"name: a\nconnect_timeout: {seconds: 1}\n", true},
		{"name: a\nconnect_timeout: {seconds: 1, nanos: 500000000}\n", true},
		{"name: a\nper_connection_buffer_limit_bytes: {value: 7}\n", true},
		{"name: a\nupstream_connection_options: {tcp_keepalive: {keepalive_probes: {}}}\n", true},
		// Left to protojson: errors, notes, and forms the direct reader
		// does not read itself.
		{"name: yes\n", false},
		{"name: a\nnames: b\n", false},
		{"name: a\nconnect_timeout: -1s\n", false},
		{"name: a\nconnect_timeout: 1s\nconnectTimeout: 2s\n", false},
		{"name: a\ntype: STATIC\ncluster_type: {name: c}\n", false},
		{"name: a\ntype: NO_SUCH\n", false},
		{"name: a\ncommon_lb_config: {healthy_panic_threshold: {value: .inf}}\n", false},
		{"name: a\ncommon_lb_config: {healthy_panic_threshold: {value: NaN}}\n", false},
		{"name: a\ncommon_lb_config: {healthy_panic_threshold: {value: 1e400}}\n", false},
		{"name: a\nmax_requests_per_connection: 5000000000\n", false},
		{"name: a\nmax_requests_per_connection: -1\n", false},
		{"name: a\ntransport_socket: {name: t, typed_config: {\"@type\": type.googleapis.com/no.such.Type, x: 1}}\n", false},
		{"name: a\ntransport_socket: {name: t, typed_config: {x: 1}}\n", false},
		{"name: a\nconnect_timeout: {seconds: -1}\n", false},
		{"name: a\nconnect_timeout: {seconds: 1, nanos: 1000000000}\n", false},
		{"name: a\nconnect_timeout: {seconds: 1, millis: 5}\n", false},
		{"name: a\nload_assignment: [1]\n", false},
		{`{"name": "a", "per_connection_buffer_limit_bytes": 1.0}`, false},
	})
}

// directCase is a Cluster in YAML or JSON, and whether the direct reader
// takes it (direct) or leaves it to protojson and its error messages.
type directCase struct {
	src    string
	direct bool
}

// holdDirectCases reads each case both ways as a message of type mt and
// checks that the two agree and that the direct reader takes the case or
// leaves it as the case says.
func holdDirectCases(t *testing.T, mt protoreflect.MessageType, cases []directCase) {
	t.Helper()
	for _, c := range cases {
		docs, _, err := readTree("c.yaml", []byte(c.src))
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		_, _, _, ok, mismatch := compareDirect(docs[0], mt, false, "")
		if mismatch != "" {
			t.Errorf("%q: %s", c.src, mismatch)
		}
		if ok != c.direct {
			t.Errorf("%q: read directly: %v, want %v", c.src, ok, c.direct)
		}
	}
}

// FuzzDirect holds the direct reader to protojson's reading on any input.
func FuzzDirect(f *testing.F) {
	src, err := os.ReadFile("testdata/bootstrap.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(src))
	f.Add("name: a\nconnect_timeout: 5s\ntype: strict_dns\nmetadata: {filter_metadata: {a: {k: [1, null]}}}\n")
	f.Fuzz(func(t *testing.T, s string) {
		docs, _, err := readTree("f.yaml", []byte(s))
		if err != nil {
			return
		}
		for _, doc := range docs {
			rs, _ := classify(doc)
			for _, r := range rs {
				if _, _, _, _, mismatch := compareDirect(r.n, messageType(r.mt), r.inDump, r.version); mismatch != "" {
					t.Fatal(mismatch)
				}
			}
		}
		if mt, err := protoregistry.GlobalTypes.FindMessageByName("envoy.config.cluster.v3.Cluster"); err == nil {
			for _, doc := range docs {
				if _, _, _, _, mismatch := compareDirect(doc, mt, false, ""); mismatch != "" {
					t.Fatal(mismatch)
				}
			}
		}
	})
}
