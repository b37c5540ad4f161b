// Package envoyload reads Envoy files in-process with parsers/envoy, as a
// load.EnvoyLoader. Programs that link it pay for Envoy's API at start-up;
// the proxylint command does not link it and runs proxylint-envoy instead.
package envoyload

import (
	"github.com/proxylint/proxylint/parsers"
	"github.com/proxylint/proxylint/parsers/envoy"
	"github.com/proxylint/proxylint/parsers/load"
)

// Load reads one Envoy file for the target.
func Load(path string, target parsers.Target) load.Result {
	r := envoy.Load(path, envoy.Options{Target: target})
	res := load.Result{Proxies: r.Proxies, Diagnostics: r.Diagnostics}
	if r.File != nil {
		res.Files = append(res.Files, r.File)
	}
	return res
}
