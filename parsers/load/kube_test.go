package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// A directory walk reads Kubernetes manifests that hold Istio or Gateway
// API resources, and Services and workloads to link them; it leaves out
// files that hold none of these.
func TestKubeDetection(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vs := write("vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: a}\nspec:\n  http:\n  - route:\n    - destination: {host: a}\n")
	deploy := write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n")
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	var skipped []string
	m := Load([]string{dir}, Options{Targets: []model.Target{{Product: model.Nginx}}, OnSkip: func(p, _ string) { skipped = append(skipped, filepath.Base(p)) }})
	if len(m.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
	if len(m.Proxies) != 1 || m.Proxies[0].Product != model.Istio || m.Proxies[0].Entry != vs || len(m.Proxies[0].Routes()) != 1 {
		t.Fatalf("proxies %+v", m.Proxies)
	}
	if len(skipped) != 1 || skipped[0] != "cm.yaml" {
		t.Errorf("skipped %v", skipped)
	}
	if len(m.Workloads) != 1 || m.Workloads[0].Name != "a" || m.Workloads[0].Pos.File != deploy || m.Workloads[0].Named {
		t.Errorf("workloads %+v", m.Workloads)
	}
	if kind, err := detect(vs, "", true, DefaultMaxFileSize); kind != KindKube || err != nil {
		t.Errorf("detect = %q, %v", kind, err)
	}
}

// A file read as manifests that holds nothing to lint fails the run
// rather than passing in silence.
func TestKubeNothingRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "deploy.yaml")
	if err := os.WriteFile(p, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Load([]string{p}, Options{Kind: KindKube})
	if len(m.Proxies) != 0 || len(m.Diagnostics) != 1 || !m.Diagnostics[0].Fatal ||
		m.Diagnostics[0].Message != p+" holds no resource proxylint reads (VirtualService, DestinationRule, HTTPRoute, GRPCRoute, Ingress, BackendTrafficPolicy)" {
		t.Fatalf("proxies %v, diagnostics %v", m.Proxies, m.Diagnostics)
	}
}

// Envoy Gateway's policies alone, without the envoy-gateway target: a
// warning, not a failed run.
func TestKubePoliciesWithoutTarget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "btp.yaml")
	src := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: a}\nspec: {}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Load([]string{p}, Options{})
	if len(m.Diagnostics) != 1 || m.Diagnostics[0].Fatal || m.Diagnostics[0].Severity != model.Warning ||
		m.Diagnostics[0].Message != p+": 1 BackendTrafficPolicy not read: Envoy Gateway's policies are read with --target envoy-gateway, in the same file as the HTTPRoutes they attach to" {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
}

// Services and workloads alone hold nothing to lint: found in a directory
// they are skipped and the run fails as one that found no configuration.
func TestKubeOnlyLinkedObjects(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "svc.yaml")
	if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {selector: {app: a}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	m := Load([]string{dir}, Options{OnSkip: func(p, _ string) { skipped = append(skipped, filepath.Base(p)) }})
	if len(m.Proxies) != 0 || len(m.Services) != 0 || len(m.Diagnostics) != 1 || !m.Diagnostics[0].Fatal ||
		m.Diagnostics[0].Message != "no nginx or Envoy configuration found in "+dir {
		t.Fatalf("proxies %v, services %v, diagnostics %v", m.Proxies, m.Services, m.Diagnostics)
	}
	if len(skipped) != 1 || skipped[0] != "svc.yaml" {
		t.Errorf("skipped %v", skipped)
	}
	m = Load([]string{p}, Options{})
	if len(m.Diagnostics) != 1 || m.Diagnostics[0].Message != p+" holds no resource proxylint reads (VirtualService, DestinationRule, HTTPRoute, GRPCRoute, Ingress, BackendTrafficPolicy)" {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
}
