package load

import (
	"path/filepath"

	"github.com/proxylint/proxylint/parsers/envoy"
)

// item is a configuration file to load: named on the command line
// (explicit), found in a named directory, or a configured entry point.
type item struct {
	path, kind, real string
	explicit         bool
}

// Scope says which files a run's findings may point into. A nil Scope
// holds every file.
type Scope struct {
	files map[string]bool // real paths
	cache map[string]bool
	// through maps the real path of a file linted through an entry point
	// to the entry point's real path.
	through map[string]string
}

// Contains reports whether findings in the file at path concern the run.
func (s *Scope) Contains(path string) bool {
	if s == nil || path == "" {
		return true
	}
	if in, ok := s.cache[path]; ok {
		return in
	}
	in := s.files[realPath(path)]
	if s.cache == nil {
		s.cache = map[string]bool{}
	}
	s.cache[path] = in
	return in
}

// withEntryPoints adds the configured entry points that include any of the
// loaded files, so that those files are linted through them, in the
// context nginx reads them in (a conf.d fragment inside the http block of
// nginx.conf), instead of alone.
//
// An entry point that was itself named or found needs nothing: its
// includes are already linted through it. When entry points are added,
// the run concerns the files that were named, not everything the entry
// points include: a pre-commit hook that passes one changed fragment
// reports the findings in that fragment. The Scope says so; it is nil when
// no entry point was added.
func withEntryPoints(items []item, results []Result, included map[string]bool, opts Options, roots []string) ([]item, []Result, *Scope) {
	if len(opts.EntryPoints) == 0 || len(items) == 0 {
		return items, results, nil
	}
	named := len(items)
	have := map[string]bool{}
	for _, it := range items {
		have[it.real] = true
	}
	var scope *Scope
	for _, ep := range opts.EntryPoints {
		real := realPath(ep)
		if real == "" || have[real] || included[real] {
			continue
		}
		kind, err := opts.source().detect(ep, opts.Kind, true, opts.MaxFileSize)
		if err != nil {
			continue
		}
		load, ok := loaderFor(kind)
		if !ok {
			continue
		}
		r := load(ep, opts, roots)
		pulls := map[string]bool{}
		for _, inc := range r.Includes {
			pulls[inc] = true
		}
		var pulled []string
		for _, it := range items[:named] {
			if pulls[it.real] && !included[it.real] {
				pulled = append(pulled, it.real)
			}
		}
		if len(pulled) == 0 {
			envoy.Release(r.envoy) // an Envoy file includes nothing
			continue
		}
		have[real] = true
		items = append(items, item{path: ep, kind: kind, real: real})
		results = append(results, r)
		if scope == nil {
			scope = &Scope{files: map[string]bool{}, through: map[string]string{}}
		}
		for _, p := range pulled {
			scope.files[p] = true
			scope.through[p] = real
		}
	}
	if scope == nil {
		return items, results, nil
	}
	// Files linted on their own stay wholly in the run, with what they
	// include.
	for i, it := range items[:named] {
		if included[it.real] || scope.files[it.real] {
			continue
		}
		for _, f := range results[i].Files {
			if real := realPath(f.Path); real != "" {
				scope.files[real] = true
			}
		}
	}
	// Mark what the entry points pull in as included only now, so that
	// two entry points including the same fragment both lint it.
	for _, r := range results[named:] {
		for _, inc := range r.Includes {
			included[inc] = true
		}
	}
	return items, results, scope
}

// realPath is the absolute path of p with symbolic links resolved, the
// identity of a file whatever path reached it; "" when it does not exist.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return real
}
