package load

import (
	"fmt"

	"github.com/proxylint/proxylint/parsers"
)

func loadEnvoy(path string, _ Options, _ []string) Result {
	return Result{Diagnostics: []parsers.Diagnostic{loadError(path, fmt.Sprintf("%s: Envoy configurations are not supported yet", path))}}
}
