package load

import (
	"fmt"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// loadEnvoy reads one Envoy file in-process. Its configurations are built
// later, with those of the other Envoy files of the run (joinEnvoy).
func loadEnvoy(path string, opts Options, _ []string) Result {
	target := opts.target(model.Envoy)
	src, err := opts.source().read(path, opts.MaxFileSize)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(path, fmt.Sprintf("cannot read %s: %v", path, unwrap(err)))}}
	}
	r := envoyResult(envoy.Read(path, src, envoy.Options{Target: target, Kept: opts.envoyKept}))
	for _, f := range r.Files {
		f.Real = realPath(path)
	}
	return r
}

func envoyResult(r envoy.Result) Result {
	res := Result{Diagnostics: r.Diagnostics, envoy: r.Parts}
	if r.File != nil {
		res.Files = append(res.Files, r.File)
	}
	return res
}

// joinEnvoy builds the Envoy configurations of the run: everything linted
// together is one deployment, so the parts of every Envoy file loaded (a
// directory walk, the files named, standard input) are built together by
// envoy.Join, which joins those that name each other's listeners, route
// configurations, clusters and endpoints. Files that the assembly leaves
// out (linted through another file, or named twice) are left out here too.
//
// Each proxy is given to the result of its first file, each diagnostic to
// the result of the file it is about; it returns the proxies joined from
// a file named on the command line, which are named however their first
// file was found.
func joinEnvoy(items []item, results []Result, included map[string]bool) map[*model.Proxy]bool {
	var parts []*envoy.Part
	owner := map[string]int{}
	explicit := map[string]bool{}
	seen := map[string]bool{}
	for i, it := range items {
		r := &results[i]
		if len(r.envoy) == 0 {
			continue
		}
		if included[it.real] || (it.real != "" && seen[it.real]) {
			envoy.Release(r.envoy)
			r.envoy = nil
			continue
		}
		seen[it.real] = true
		for _, p := range r.envoy {
			if _, ok := owner[p.File()]; !ok {
				owner[p.File()] = i
			}
			explicit[p.File()] = explicit[p.File()] || it.explicit
		}
		parts = append(parts, r.envoy...)
		r.envoy = nil
	}
	if len(parts) == 0 {
		return nil
	}
	proxies, diags := envoy.Join(parts)
	named := map[*model.Proxy]bool{}
	for _, p := range proxies {
		i := owner[p.Pos.File]
		results[i].Proxies = append(results[i].Proxies, p)
		for _, f := range p.Sources {
			if explicit[f] {
				named[p] = true
			}
		}
	}
	for _, d := range diags {
		i, ok := owner[d.Pos.File]
		if !ok {
			i = owner[parts[0].File()]
		}
		results[i].Diagnostics = append(results[i].Diagnostics, d)
	}
	return named
}
