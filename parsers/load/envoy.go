package load

import (
	"fmt"

	"github.com/proxylint/proxylint/parsers"
)

func loadEnvoy(path string, opts Options, _ []string) Result {
	target := opts.Target
	if target.Product != parsers.Envoy {
		target = parsers.Target{Product: parsers.Envoy}
	}
	if opts.Envoy == nil {
		return Result{Diagnostics: []parsers.Diagnostic{loadError(path, fmt.Sprintf("%s: Envoy configurations cannot be read by this program", path))}}
	}
	return opts.Envoy(path, target)
}
