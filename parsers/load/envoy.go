package load

import (
	"fmt"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// loadEnvoy reads one Envoy file in-process.
func loadEnvoy(path string, opts Options, _ []string) Result {
	target := opts.target(model.Envoy)
	src, err := opts.source().read(path, opts.MaxFileSize)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(path, fmt.Sprintf("cannot read %s: %v", path, unwrap(err)))}}
	}
	r := envoy.LoadBytes(path, src, envoy.Options{Target: target})
	res := Result{Proxies: r.Proxies, Diagnostics: r.Diagnostics}
	if r.File != nil {
		res.Files = append(res.Files, r.File)
	}
	return res
}
