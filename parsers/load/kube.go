package load

import (
	"fmt"

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
	r := kube.LoadBytes(path, src, kube.Options{Target: opts.Target})
	res := Result{Files: []*model.File{r.File}, Diagnostics: r.Diagnostics}
	res.Proxies = r.Proxies
	if len(r.Proxies) == 0 && len(r.Diagnostics) == 0 {
		// Read as manifests (--kind kubernetes, or a kind named only in
		// a comment or a block of text): nothing here would be linted.
		res.Diagnostics = append(res.Diagnostics, loadError(path, fmt.Sprintf(
			"%s holds no resource proxylint reads (VirtualService, DestinationRule, HTTPRoute, GRPCRoute, Ingress)", path)))
	}
	return res
}
