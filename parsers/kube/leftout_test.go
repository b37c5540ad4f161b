package kube

import (
	"testing"

	"github.com/proxylint/proxylint/model"
)

// A file whose Ingresses all name another controller's class is a valid
// manifest proxylint does not model: a note at the first such Ingress,
// not a failure to read the file.
func TestIngressOfAnotherClass(t *testing.T) {
	src := `apiVersion: v1
kind: Service
metadata: {name: productpage}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: gateway
  annotations:
    kubernetes.io/ingress.class: "istio"
spec:
  rules:
  - http:
      paths:
      - path: /productpage
        pathType: Exact
        backend:
          service: {name: productpage, port: {number: 9080}}
`
	res := LoadBytes("ing.yaml", []byte(src), Options{})
	if len(res.Proxies) != 0 || len(res.Diagnostics) != 1 {
		t.Fatalf("proxies %v, diagnostics %v", res.Proxies, res.Diagnostics)
	}
	d := res.Diagnostics[0]
	want := `ing.yaml: Ingress gateway names ingress class "istio"; proxylint reads the Ingresses of ingress-nginx and of NGINX Inc's Ingress controller only, so nothing here is linted`
	if d.Code != "load-error" || d.Severity != model.Note || d.Pos != (model.Pos{File: "ing.yaml", Line: 5, Col: 1}) || d.Message != want {
		t.Errorf("diagnostic %+v", d)
	}
	// An nginx Ingress beside it is read, and the note is not given.
	res = LoadBytes("ing.yaml", []byte(src+"---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  ingressClassName: nginx\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n"), Options{})
	if len(res.Proxies) != 1 || len(res.Diagnostics) != 0 {
		t.Errorf("proxies %v, diagnostics %v", res.Proxies, res.Diagnostics)
	}
}

// An IstioOperator alone (istio/istio's tests/integration/base.yaml) is a
// Kubernetes manifest with nothing to lint: a note, not "cannot tell
// whether this is an nginx or an Envoy configuration".
func TestIstioOperatorAlone(t *testing.T) {
	src := "# defaults\napiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata:\n  name: install\nspec:\n  meshConfig:\n    defaultHttpRetryPolicy: {}\n"
	if !Detect([]byte(src)) {
		t.Fatal("an IstioOperator is not detected as a Kubernetes manifest")
	}
	res := LoadBytes("op.yaml", []byte(src), Options{})
	want := "op.yaml: IstioOperator install configures Istio, not routes: proxylint applies its mesh config to the VirtualServices and routes linted with it, and none is, so nothing here is linted"
	if len(res.Proxies) != 0 || len(res.Diagnostics) != 1 || res.Diagnostics[0].Message != want ||
		res.Diagnostics[0].Severity != model.Note || res.Diagnostics[0].Pos != (model.Pos{File: "op.yaml", Line: 2, Col: 1}) {
		t.Fatalf("proxies %v, diagnostics %v", res.Proxies, res.Diagnostics)
	}
}
