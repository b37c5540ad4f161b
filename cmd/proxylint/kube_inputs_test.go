package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	kubeDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  template:\n    metadata: {labels: {app: api}}\n"
	kubeService    = "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n  selector: {app: api}\n  ports: [{port: 80}]\n"
	kubeConfigMap  = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api}\ndata: {LOG_LEVEL: info}\n"
	kubeGateway    = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public}\nspec: {gatewayClassName: eg}\n"
	kubeRoute      = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: orders}\nspec:\n  parentRefs: [{name: public}]\n  rules:\n  - backendRefs: [{name: orders, port: 8080}]\n"
	kubePolicy     = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: gateway-defaults}\nspec:\n  targetRefs: [{kind: Gateway, name: public}]\n  retry:\n    retryOn:\n      triggers: [5xx]\n"
	kubeClient     = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: client}\nspec:\n  targetRefs: [{kind: Gateway, name: public}]\n  timeout: {http: {idleTimeout: 30s}}\n"
)

// Manifests that configure no proxy, in a directory walk or named as a
// pre-commit hook names the files of a commit, are skipped and counted:
// the run passes, saying nothing in it configures a proxy, and --verbose
// names each file with the reason.
func TestKubernetesManifestsWithoutProxies(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "k8s/deployment.yaml", kubeDeployment)
	writeFile(t, dir, "k8s/service.yaml", kubeService)
	writeFile(t, dir, "k8s/configmap.yaml", kubeConfigMap)
	writeFile(t, dir, "k8s/gateway.yaml", kubeGateway)

	code, out, errOut := runCLI(t, dir, "--no-color", "k8s")
	assert.Equal(t, exitClean, code, errOut)
	assert.Equal(t, "k8s: note: nothing in k8s configures a proxy: 4 Kubernetes manifests were skipped (--verbose names them) [load-error]\n1 note (4 files skipped)\n", out)
	assert.Empty(t, errOut)

	code, out, errOut = runCLI(t, dir, "--no-color", "--verbose", "k8s/deployment.yaml", "k8s/service.yaml", "k8s/configmap.yaml", "k8s/gateway.yaml")
	assert.Equal(t, exitClean, code, errOut)
	assert.Contains(t, out, "nothing in k8s/deployment.yaml, k8s/service.yaml, k8s/configmap.yaml, k8s/gateway.yaml configures a proxy")
	assert.Contains(t, out, "(4 files skipped)")
	assert.Equal(t, `proxylint: skipped k8s/deployment.yaml: Kubernetes resources that configure no proxy (Deployment: read only to link routes to the pods behind them)
proxylint: skipped k8s/service.yaml: Kubernetes resources that configure no proxy (Service: read only to link routes to the pods behind them)
proxylint: skipped k8s/configmap.yaml: a Kubernetes resource proxylint does not read (ConfigMap)
proxylint: skipped k8s/gateway.yaml: a Kubernetes resource proxylint does not read (Gateway)
`, errOut)

	// JSON counts them as skipped too.
	code, out, _ = runCLI(t, dir, "--format", "json", "k8s")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, `"skipped": 4`)

	// Beside a configuration, they are skipped and nothing more is said.
	writeFile(t, dir, "k8s/route.yaml", kubeRoute)
	code, out, errOut = runCLI(t, dir, "--no-color", "k8s")
	assert.NotEqual(t, exitError, code, errOut)
	assert.NotContains(t, out, "configures a proxy")
	assert.Contains(t, out, "4 files skipped")
}

// Named alone with --kind kubernetes, a manifest that configures no proxy
// stays an error: the user said it was one to lint.
func TestKubernetesKindForcedWithoutProxies(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.yaml", kubeGateway)
	code, out, _ := runCLI(t, dir, "--no-color", "--kind", "kubernetes", "gateway.yaml")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "gateway.yaml: error: gateway.yaml: a Kubernetes resource proxylint does not read (Gateway), so nothing in it is linted (read as Kubernetes manifests because of --kind kubernetes) [load-error]\n1 error\n", out)

	// Without --kind, a resource of a kind proxylint does not read is
	// never "cannot tell whether this is an nginx or an Envoy
	// configuration".
	code, out, errOut := runCLI(t, dir, "--no-color", "--verbose", "gateway.yaml")
	assert.Equal(t, exitClean, code, errOut)
	assert.NotContains(t, out+errOut, "cannot tell")
	assert.Contains(t, errOut, "proxylint: skipped gateway.yaml: a Kubernetes resource proxylint does not read (Gateway)\n")
}

// A file holding only a ClientTrafficPolicy is a Kubernetes manifest:
// without the envoy-gateway target it is a warning that says how it is
// read, with it a note that says which half is missing.
func TestKubernetesClientTrafficPolicyAlone(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "client.yaml", kubeClient)
	code, out, _ := runCLI(t, dir, "--no-color", "client.yaml")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "client.yaml: warning: client.yaml: 1 ClientTrafficPolicy not read: Envoy Gateway's policies are read with --target envoy-gateway, with the HTTPRoutes they attach to [load-error]\n")
	assert.NotContains(t, out, "cannot tell")

	code, out, _ = runCLI(t, dir, "--no-color", "--target", "envoy-gateway", "client.yaml")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "client.yaml:5:16: note: ClientTrafficPolicy client applies to no route linted with it: it targets Gateway public, and no HTTPRoute linted with it has that Gateway among its parentRefs")
}

// A Gateway-wide BackendTrafficPolicy in one file and the HTTPRoute
// behind the Gateway in another give the error the same two documents
// give in one file: as a directory, named together, and on standard
// input (helm template | proxylint -).
func TestKubernetesSplitPolicyAndRoute(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "one/all.yaml", kubePolicy+"---\n"+kubeRoute)
	writeFile(t, dir, "split/gateway/policy.yaml", kubePolicy)
	writeFile(t, dir, "split/apps/orders/route.yaml", kubeRoute)
	args := []string{"--no-color", "--target", "envoy-gateway"}

	code, one, errOut := runCLI(t, dir, append(args, "one/all.yaml")...)
	require.Equal(t, exitFindings, code, errOut)
	require.Contains(t, one, "one/all.yaml:8:17: error: retry.retryOn.triggers 5xx retries POST and PATCH")
	require.Contains(t, one, "    note: one/all.yaml:16:5: HTTPRoute orders rules[0]: the route has no :method matcher, so it carries every method\n")
	require.Contains(t, one, "    note: one/all.yaml:6:3: retry.numRetries 2 (default)\n")

	// The same finding, at the policy's line in its own file, with the
	// route's line in the other.
	want := strings.NewReplacer("one/all.yaml:8:", "split/gateway/policy.yaml:8:", "one/all.yaml:6:", "split/gateway/policy.yaml:6:",
		"one/all.yaml:16:", "split/apps/orders/route.yaml:7:", "read 1 file", "read 2 files").Replace(one)
	for _, paths := range [][]string{{"split"}, {"split/gateway/policy.yaml", "split/apps/orders/route.yaml"}} {
		code, out, errOut := runCLI(t, dir, append(args, paths...)...)
		assert.Equal(t, exitFindings, code, errOut)
		assert.Equal(t, want, out, "%v", paths)
	}

	// Standard input: the stream of helm template, one document after
	// another.
	src, err := os.ReadFile(filepath.Join(dir, "one", "all.yaml"))
	require.NoError(t, err)
	code, out, errOut := runStdin(t, dir, string(src), append(args, "--stdin-filename", "rendered.yaml", "-")...)
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, "rendered.yaml:8:17: error: retry.retryOn.triggers 5xx retries POST and PATCH")
}

// proxylint chain links the manifests of a run as one deployment, however
// far apart their directories are (a GitOps repository keeps the mesh's
// resources apart from the apps'): the Ingress path continues in the
// mesh route and reaches the workload.
func TestChainKubernetesAcrossDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ from, to string }{
		{"ingress.yaml", "kubernetes/apps/bookinfo/ingress/ingress.yaml"},
		{"reviews.yaml", "kubernetes/mesh/routes/bookinfo/reviews.yaml"},
		{"workload.yaml", "kubernetes/apps/bookinfo/reviews/workload.yaml"},
	} {
		src, err := os.ReadFile(filepath.Join("../../fixtures/examples/k8s/mesh", c.from))
		require.NoError(t, err)
		writeFile(t, dir, c.to, string(src))
	}
	code, out, errOut := runCLI(t, dir, "chain", "--no-color", "kubernetes")
	require.Equal(t, exitClean, code, errOut)
	assert.Contains(t, out, "Path 1 of 1: kubernetes/apps/bookinfo/ingress/ingress.yaml:16 Ingress bookinfo bookinfo.example.com/reviews\n")
	assert.Contains(t, out, "  istio kubernetes/mesh/routes/bookinfo/reviews.yaml VirtualService reviews http[0]")
	assert.Contains(t, out, "  StatefulSet bookinfo/reviews-v1:9080 ")
}
