package load

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/kube"
)

// KindKube is a Kubernetes manifest of proxy resources (parsers/kube).
const KindKube = "kubernetes"

func loadKube(path string, opts Options, _ []string) Result {
	src, err := ReadRegular(path, opts.MaxFileSize)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(path, fmt.Sprintf("cannot read %s: %v", path, unwrap(err)))}}
	}
	r := kube.LoadBytes(path, src, kube.Options{Target: kubeTarget(opts)})
	r.File.Real = realPath(path)
	res := Result{Files: []*model.File{r.File}, Diagnostics: r.Diagnostics}
	res.Proxies = r.Proxies
	res.Services, res.Workloads = r.Services, r.Workloads
	btp := r.Skipped["gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy"]
	switch {
	case len(r.Proxies) > 0 || len(r.Diagnostics) > 0:
	case len(r.Services)+len(r.Workloads) > 0:
		// Read to link the routes of other files to the cluster; the
		// run fails if nothing else is read (nothingToLint).
		res.linkOnly = true
	case btp > 0:
		// Policies without their routes: read under the envoy-gateway
		// target with the routes they attach to.
		res.Diagnostics = append(res.Diagnostics, model.Diagnostic{Code: "load-error", Severity: model.Warning, Pos: model.Pos{File: path},
			Message: fmt.Sprintf("%s: %d BackendTrafficPolicy not read: Envoy Gateway's policies are read with --target envoy-gateway, in the same file as the HTTPRoutes they attach to", path, btp)})
	default:
		// Read as manifests (--kind kubernetes, or a kind named only in
		// a comment or a block of text): nothing here would be linted.
		res.Diagnostics = append(res.Diagnostics, loadError(path, fmt.Sprintf(
			"%s holds no resource proxylint reads (VirtualService, DestinationRule, HTTPRoute, GRPCRoute, Ingress, BackendTrafficPolicy)", path)))
	}
	return res
}

// kubeTarget is the platform release manifests are read for: the first
// target naming a Kubernetes platform, else none (the loader's default:
// the newest Istio, which also reads Gateway API routes).
func kubeTarget(opts Options) model.Target {
	for _, t := range opts.Targets {
		switch t.Product {
		case model.Istio, model.IngressNginx, model.EnvoyGateway:
			return t
		}
	}
	return model.Target{}
}

// nothingToLint fails a run whose files hold only Services and workloads,
// which are read to link routes and hold nothing to lint: a file named on
// the command line is an error of its own, files found in a directory
// are skipped as before.
func nothingToLint(m *model.Model, linkOnly []item, paths []string, opts Options) {
	if len(m.Proxies) > 0 || len(linkOnly) == 0 {
		return
	}
	walked := false
	for _, it := range linkOnly {
		if it.explicit {
			m.Diagnostics = append(m.Diagnostics, loadError(it.path, fmt.Sprintf(
				"%s holds no resource proxylint reads (VirtualService, DestinationRule, HTTPRoute, GRPCRoute, Ingress, BackendTrafficPolicy)", it.path)))
			continue
		}
		walked = true
		opts.skip(it.path, "not an nginx or Envoy configuration")
	}
	m.Services, m.Workloads = nil, nil
	if walked && !fatal(m.Diagnostics) {
		m.Diagnostics = append(m.Diagnostics, loadError(paths[0], fmt.Sprintf("no nginx or Envoy configuration found in %s", strings.Join(paths, ", "))))
	}
}
