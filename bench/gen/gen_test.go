package gen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
)

// The generated configurations must be ones proxylint reads without a
// problem (else the benchmarks would time error paths) and, for nginx,
// ones nginx itself accepts.
func TestNginxTreeLoads(t *testing.T) {
	dir := t.TempDir()
	main, err := NginxTree{Servers: 120, ServersPerFile: 50}.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	sites, _ := filepath.Glob(filepath.Join(dir, "sites", "*.conf"))
	if len(sites) != 3 {
		t.Errorf("sites: %d files, want 3", len(sites))
	}
	m := load.Load([]string{main}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	for _, d := range m.Diagnostics {
		t.Errorf("diagnostic: %s: %s", d.Pos, d.Message)
	}
	routes := 0
	for _, p := range m.Proxies {
		routes += len(p.Routes())
	}
	// 120 servers × 7 locations, and the default server's "/".
	if routes < 120*7 {
		t.Errorf("%d routes, want at least %d", routes, 120*7)
	}
	nginxAccepts(t, main)
}

func TestNginxTreeIsDeterministic(t *testing.T) {
	a := NginxTree{Servers: 30}.Files("/x")
	b := NginxTree{Servers: 30}.Files("/x")
	if len(a) != len(b) {
		t.Fatal("different files")
	}
	for name, content := range a {
		if b[name] != content {
			t.Errorf("%s differs between two runs", name)
		}
	}
	if c := (NginxTree{Servers: 30, Seed: 2}).Files("/x"); c["sites/part-0000.conf"] == a["sites/part-0000.conf"] {
		t.Error("another seed gives the same servers")
	}
}

func TestOneFile(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte(OneFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(OneFile, "\n"); n < 25 || n > 40 {
		t.Errorf("OneFile has %d lines, want about 30", n)
	}
	m := load.Load([]string{main}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	for _, d := range m.Diagnostics {
		t.Errorf("diagnostic: %s: %s", d.Pos, d.Message)
	}
	nginxAccepts(t, main)
}

func TestEnvoyBootstrapLoads(t *testing.T) {
	e := EnvoyBootstrap{Listeners: 3, RoutesPerListener: 7, Clusters: 5}
	path := filepath.Join(t.TempDir(), "envoy.yaml")
	if err := os.WriteFile(path, e.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	m := load.Load([]string{path}, load.Options{Kind: load.KindEnvoy})
	for _, d := range m.Diagnostics {
		t.Errorf("diagnostic: %s: %s", d.Pos, d.Message)
	}
	if len(m.Proxies) != 1 {
		t.Fatalf("%d proxies, want 1", len(m.Proxies))
	}
	if got := len(m.Proxies[0].Routes()); got != e.Routes() {
		t.Errorf("%d routes, want %d", got, e.Routes())
	}
}

// nginxAccepts runs nginx -t on main with a scratch prefix, when nginx is
// installed.
func nginxAccepts(t *testing.T, main string) {
	t.Helper()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			t.Log("nginx not installed: not checked with nginx -t")
			return
		}
		nginx = "/usr/sbin/nginx"
	}
	prefix := t.TempDir()
	for _, d := range []string{"logs", "tmp"} {
		if err := os.MkdirAll(filepath.Join(prefix, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, nginx, "-q", "-t", "-p", prefix+"/", "-e", filepath.Join(prefix, "logs", "error.log"), "-c", main).CombinedOutput()
	if err != nil {
		t.Errorf("nginx -t: %v\n%s", err, out)
	}
}

// The cluster's manifests load without a problem, into the proxies of
// both controllers, with every Service and Deployment read, and each path
// reaches its workload.
func TestKubeDeploymentLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := KubeDeployment(f, 40); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	m := load.Load([]string{path}, load.Options{Kind: "kubernetes"})
	for _, d := range m.Diagnostics {
		if d.Severity >= model.Warning {
			t.Errorf("diagnostic: %s: %s", d.Pos, d.Message)
		}
	}
	if len(m.Services) != 10 || len(m.Workloads) != 10 {
		t.Errorf("%d Services and %d workloads, want 10 each", len(m.Services), len(m.Workloads))
	}
	routes := 0
	for _, p := range m.Proxies {
		routes += len(p.Routes())
	}
	if len(m.Proxies) != 2 || routes != 20 {
		t.Errorf("%d proxies with %d routes, want 2 with 20", len(m.Proxies), routes)
	}
}
