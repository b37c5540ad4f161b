package load

import (
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// loadEnvoy reads one Envoy file in-process.
func loadEnvoy(path string, opts Options, _ []string) Result {
	target := opts.Target
	if target.Product != model.Envoy {
		target = model.Target{Product: model.Envoy}
	}
	r := envoy.Load(path, envoy.Options{Target: target})
	res := Result{Proxies: r.Proxies, Diagnostics: r.Diagnostics}
	if r.File != nil {
		res.Files = append(res.Files, r.File)
	}
	return res
}
