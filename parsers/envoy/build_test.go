package envoy

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
)

// collectionOf reads src as the loader does, up to the collection the
// model is built from.
func collectionOf(t *testing.T, name string, src []byte) *collection {
	t.Helper()
	docs, _, err := readTree(name, src)
	if err != nil {
		t.Fatal(err)
	}
	c := &collection{}
	for _, doc := range docs {
		roots, probs := classify(doc)
		if len(probs) > 0 {
			t.Fatalf("%+v", probs)
		}
		for _, r := range roots {
			m, probs, _ := decodeRoot(r.n, messageType(r.mt), r.inDump, r.version)
			if m == nil || len(probs) > 0 {
				t.Fatalf("%s: %+v", r.mt, probs)
			}
			c.add(m, r.n, r.dumped)
		}
	}
	c.finish()
	return c
}

// describeProxy writes what the model says of each listener, route and
// upstream, in order, with which routes each upstream serves.
func describeProxy(p *model.Proxy) string {
	var b strings.Builder
	for _, ln := range p.Listeners {
		fmt.Fprintf(&b, "listener %s at %v, proxy %v, codec %v, idle %v\n", ln.Name, ln.Pos, ln.Proxy == p, ln.Codec.Value, ln.IdleTimeout.Value)
		for _, rt := range ln.Routes {
			up := ""
			if rt.Forward != nil && rt.Forward.Upstream != nil {
				up = rt.Forward.Upstream.Name
			}
			fmt.Fprintf(&b, "  %s at %v to %q, budget %v, attempts %d, idle %v\n", rt.Name, rt.Pos, up, rt.Budget.Value, rt.MaxAttempts.Value, rt.Envoy.IdleTimeout.Value)
		}
	}
	for _, u := range p.Upstreams {
		fmt.Fprintf(&b, "upstream %s:", u.Name)
		for _, rt := range u.Routes {
			fmt.Fprintf(&b, " %s@%v", rt.Listener.Name, rt.Pos)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Listeners built by forks of the builder come out as the builder alone
// builds them: the same listeners, routes and settings, in order, and
// each upstream's routes in the order of the configuration.
func TestListenersBuiltSideBySideAsInOrder(t *testing.T) {
	defer rememberUnpacked()()
	src := gen.EnvoyBootstrap{Listeners: 3 * sideBySideItems, RoutesPerListener: 7, Clusters: 5}.YAML()
	c := collectionOf(t, "generated.yaml", src)
	target := model.DefaultTarget(model.Envoy)
	together := describeProxy(buildSideBySide("generated.yaml", target, c, sideBySideItems))
	alone := describeProxy(buildSideBySide("generated.yaml", target, c, math.MaxInt))
	if together != alone {
		t.Errorf("built side by side:\n%s\nbuilt in order:\n%s", together, alone)
	}
	if !strings.Contains(alone, "listener") || strings.Count(alone, "@") < 3*sideBySideItems*7 {
		t.Errorf("too little built to compare:\n%s", alone)
	}
}
