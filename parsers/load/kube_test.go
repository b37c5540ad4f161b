package load

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/proxylint/proxylint/model"
)

func writeManifest(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A directory walk reads Kubernetes manifests that hold Istio or Gateway
// API resources, and Services and workloads to link them; a manifest that
// configures no proxy is skipped, with the reason, and its workloads
// still link.
func TestKubeDetection(t *testing.T) {
	dir := t.TempDir()
	vs := writeManifest(t, dir, "vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: a}\nspec:\n  http:\n  - route:\n    - destination: {host: a}\n")
	deploy := writeManifest(t, dir, "deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n")
	writeManifest(t, dir, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	skipped := map[string]string{}
	m := Load([]string{dir}, Options{Targets: []model.Target{{Product: model.Nginx}}, OnSkip: func(p, why string) { skipped[filepath.Base(p)] = why }})
	if len(m.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
	if len(m.Proxies) != 1 || m.Proxies[0].Product != model.Istio || m.Proxies[0].Entry != vs || len(m.Proxies[0].Routes()) != 1 {
		t.Fatalf("proxies %+v", m.Proxies)
	}
	want := map[string]string{
		"cm.yaml":     "a Kubernetes resource proxylint does not read (ConfigMap)",
		"deploy.yaml": "Kubernetes resources that configure no proxy (Deployment: read only to link routes to the pods behind them)",
	}
	if !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
	if len(m.Workloads) != 1 || m.Workloads[0].Name != "a" || m.Workloads[0].Pos.File != deploy || m.Workloads[0].Named {
		t.Errorf("workloads %+v", m.Workloads)
	}
	if len(m.Files) != 1 || m.Files[0].Path != vs {
		t.Errorf("files read %v, want the VirtualService's alone", m.Files)
	}
	if kind, err := detect(vs, "", true, DefaultMaxFileSize); kind != KindKube || err != nil {
		t.Errorf("detect = %q, %v", kind, err)
	}
}

// Named alone with --kind kubernetes, a manifest that configures no proxy
// fails the run rather than passing in silence.
func TestKubeNothingRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "deploy.yaml")
	if err := os.WriteFile(p, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Load([]string{p}, Options{Kind: KindKube})
	if len(m.Proxies) != 0 || len(m.Diagnostics) != 1 || !m.Diagnostics[0].Fatal ||
		m.Diagnostics[0].Message != p+": Kubernetes resources that configure no proxy (Deployment: read only to link routes to the pods behind them), so nothing in it is linted (read as Kubernetes manifests because of --kind kubernetes)" {
		t.Fatalf("proxies %v, diagnostics %v", m.Proxies, m.Diagnostics)
	}
	gw := writeManifest(t, filepath.Dir(p), "gw.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: a}\n")
	m = Load([]string{gw}, Options{Kind: KindKube})
	if len(m.Diagnostics) != 1 || !m.Diagnostics[0].Fatal ||
		m.Diagnostics[0].Message != gw+": a Kubernetes resource proxylint does not read (Gateway), so nothing in it is linted (read as Kubernetes manifests because of --kind kubernetes)" {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
}

// Envoy Gateway's policies alone, without the envoy-gateway target: a
// warning, not a failed run, for each file that holds them.
func TestKubePoliciesWithoutTarget(t *testing.T) {
	dir := t.TempDir()
	p := writeManifest(t, dir, "btp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: a}\nspec: {}\n")
	c := writeManifest(t, dir, "ctp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: a}\nspec: {}\n")
	m := Load([]string{p, c}, Options{})
	if len(m.Diagnostics) != 2 || m.Diagnostics[0].Fatal || m.Diagnostics[0].Severity != model.Warning ||
		m.Diagnostics[0].Message != p+": 1 BackendTrafficPolicy not read: Envoy Gateway's policies are read with --target envoy-gateway, with the HTTPRoutes they attach to" ||
		m.Diagnostics[1].Message != c+": 1 ClientTrafficPolicy not read: Envoy Gateway's policies are read with --target envoy-gateway, with the HTTPRoutes they attach to" {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
}

// Manifests that configure no proxy, alone in a run (a directory walked,
// files a pre-commit hook names, standard input): each is skipped, and
// the run says in a note that nothing in it configures a proxy, and
// fails on nothing.
func TestKubeNothingConfiguresAProxy(t *testing.T) {
	dir := t.TempDir()
	svc := writeManifest(t, dir, "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {selector: {app: a}}\n")
	cm := writeManifest(t, dir, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: b}\n")
	writeManifest(t, dir, "README.md", "# manifests\n")
	for _, c := range []struct {
		paths   []string
		stdin   *Stdin
		skipped int
		note    string
	}{
		{[]string{dir}, nil, 3, "nothing in " + dir + " configures a proxy: 2 Kubernetes manifests were skipped (--verbose names them)"},
		{[]string{svc, cm}, nil, 2, "nothing in " + svc + ", " + cm + " configures a proxy: 2 Kubernetes manifests were skipped (--verbose names them)"},
		{[]string{StdinPath}, &Stdin{Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n")}, 1,
			"nothing in <stdin> configures a proxy: 1 Kubernetes manifest was skipped (--verbose names it)"},
	} {
		skipped := 0
		m := Load(c.paths, Options{Stdin: c.stdin, OnSkip: func(string, string) { skipped++ }})
		if len(m.Proxies) != 0 || len(m.Files) != 0 || len(m.Diagnostics) != 1 || m.Diagnostics[0].Fatal ||
			m.Diagnostics[0].Severity != model.Note || m.Diagnostics[0].Message != c.note {
			t.Errorf("%v: proxies %v, files %v, diagnostics %v", c.paths, m.Proxies, m.Files, m.Diagnostics)
		}
		if skipped != c.skipped {
			t.Errorf("%v: %d skipped, want %d", c.paths, skipped, c.skipped)
		}
	}
	// Beside a configuration, they are skipped and the run says nothing
	// more.
	conf := writeManifest(t, dir, "nginx.conf", "events {}\nhttp {}\n")
	skipped := 0
	m := Load([]string{conf, svc, cm}, Options{OnSkip: func(string, string) { skipped++ }})
	if len(m.Diagnostics) != 0 || skipped != 2 || len(m.Proxies) != 1 {
		t.Errorf("diagnostics %v, %d skipped, proxies %v", m.Diagnostics, skipped, m.Proxies)
	}
}

// A ClientTrafficPolicy alone is a Kubernetes manifest, not a file whose
// kind cannot be told.
func TestKubeClientTrafficPolicyDetected(t *testing.T) {
	p := writeManifest(t, t.TempDir(), "ctp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: a}\nspec:\n  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: Gateway, name: eg}\n")
	if kind, err := detect(p, "", true, DefaultMaxFileSize); kind != KindKube || err != nil {
		t.Errorf("detect = %q, %v", kind, err)
	}
}

// A Helm chart's templates (CHART/templates/ beside CHART/Chart.yaml) are
// Go template text, not manifests: skipped, with the reason, in a walk
// and when named; a run of nothing else passes with a note that says how
// to lint them.
func TestHelmChartTemplates(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "shop")
	if err := os.MkdirAll(filepath.Join(chart, "templates", "ingress"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeManifest(t, chart, "Chart.yaml", "apiVersion: v2\nname: shop\nversion: 1.0.0\n")
	ing := writeManifest(t, chart, "templates/ingress/ingress.yaml",
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  rules:\n  {{- range .Values.hosts }}\n  - host: {{ . }}\n  {{- end }}\n")
	skipped := map[string]string{}
	onSkip := func(p, why string) { skipped[p] = why }
	m := Load([]string{chart}, Options{OnSkip: onSkip})
	want := "nothing in " + chart + " was linted: 1 Helm chart template was skipped, which proxylint reads once helm renders them (helm template CHART | proxylint -); --verbose names it"
	if len(m.Proxies) != 0 || len(m.Diagnostics) != 1 || m.Diagnostics[0].Fatal || m.Diagnostics[0].Message != want {
		t.Fatalf("proxies %v, diagnostics %v", m.Proxies, m.Diagnostics)
	}
	reason := "a Helm chart template (" + filepath.Join(chart, "Chart.yaml") + "): lint what helm renders (helm template " + chart + " | proxylint -)"
	if skipped[ing] != reason {
		t.Errorf("skipped %q", skipped)
	}
	clear(skipped)
	m = Load([]string{ing}, Options{OnSkip: onSkip})
	if len(m.Diagnostics) != 1 || m.Diagnostics[0].Fatal || skipped[ing] != reason {
		t.Errorf("named: diagnostics %v, skipped %q", m.Diagnostics, skipped)
	}
	// Beside a manifest that is read, the template is skipped and nothing
	// more is said.
	vs := writeManifest(t, dir, "vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: a}\nspec:\n  http:\n  - route:\n    - destination: {host: a}\n")
	m = Load([]string{vs, ing}, Options{})
	if len(m.Diagnostics) != 0 || len(m.Proxies) != 1 {
		t.Errorf("diagnostics %v, proxies %v", m.Diagnostics, m.Proxies)
	}
}
