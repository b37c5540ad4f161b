package load

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// maxDiscoverUp bounds how many directories above a fragment's are
// searched for the configuration that includes it, when no repository
// root (a directory holding .git) comes first.
const maxDiscoverUp = 3

// discoverEntryPoints finds, for each nginx fragment loaded that no loaded
// file includes, the main configuration that includes it: nginx.conf or
// another *.conf with the main context (events, http) in the fragment's
// directory or one above it, up to the repository root. The nearest
// directory that has one wins; within it, nginx.conf first, then files in
// name order. A main configuration with errors of its own is passed over.
// Outside a repository the search goes up at most maxDiscoverUp
// directories, and never into directories that hold unrelated files: the
// system's temporary directory, the home directory, the root. Configured
// entry points replace the search.
//
// It returns the entry points found, with the directories they resolve
// includes from, which the run must be able to read; and, for each
// fragment that no main configuration includes and whose relative includes
// were not found, the nearest main configuration above it, whose directory
// is the repository's conf prefix: nginx would resolve the fragment's
// relative includes from there.
func discoverEntryPoints(items []item, results []Result, included map[string]bool, opts Options, roots []string) (eps, dirs []string, prefixes map[int]string) {
	prefixes = map[int]string{}
	if len(opts.EntryPoints) > 0 || opts.OverlayOnly {
		// An OverlayOnly run names every file there is: no includer
		// waits on the disk.
		return nil, nil, prefixes
	}
	cache := map[string]*Result{}
	found := map[string]bool{}
	shared := map[string]bool{string(filepath.Separator): true, realPath(os.TempDir()): true}
	if home, err := os.UserHomeDir(); err == nil {
		shared[realPath(home)] = true
	}
	for i, it := range items {
		if it.kind != KindNginx || !results[i].fragment || it.real == "" || included[it.real] {
			continue
		}
		dir := filepath.Dir(it.real)
		nearest := ""
		limit := maxDiscoverUp
		if repo := repositoryRoot(dir); repo != "" {
			limit = strings.Count(dir, string(filepath.Separator)) - strings.Count(repo, string(filepath.Separator))
		}
		for up := 0; up <= limit && !shared[dir]; up++ {
			ep, main := includer(dir, it.real, opts, roots, cache)
			if ep != "" {
				if !found[ep] {
					found[ep] = true
					eps = append(eps, ep)
					dirs = append(dirs, filepath.Dir(ep))
				}
				nearest = ""
				break
			}
			if nearest == "" {
				nearest = main
			}
			dir = filepath.Dir(dir)
		}
		if ep, within := fragmentChain(it.real, filepath.Dir(it.real), limit, shared, opts, roots, cache); ep != "" {
			// No whole configuration includes it, but a fragment does
			// (a site that includes this snippet): linted through the
			// outermost such fragment, its findings there are those of
			// the surroundings the repository gives it.
			if !found[ep] {
				found[ep] = true
				eps = append(eps, ep)
				dirs = append(dirs, within...)
			}
			nearest = ""
		}
		if nearest != "" && results[i].unreadRelative {
			prefixes[i] = nearest
		}
	}
	return eps, dirs, prefixes
}

// fragmentChain is the outermost of the fragments that include the file at
// real, one within the other, found in the directory dir and those above it
// (as far as limit and shared let the search for a main configuration go);
// "" when no fragment includes it. It is called once no main configuration
// was found that includes the file. within are the directories the
// fragments' relative includes resolve in, which the run must be able to
// read.
func fragmentChain(real, dir string, limit int, shared map[string]bool, opts Options, roots []string, cache map[string]*Result) (ep string, within []string) {
	seen := map[string]bool{real: true}
	// The fragments' relative includes resolve against their directory
	// or one above it, as far as the search goes.
	for d, up := dir, 0; up <= limit && !shared[d]; up++ {
		within = append(within, d)
		d = filepath.Dir(d)
	}
	roots = append(append([]string{}, roots...), within...)
	top, cur := "", real
	for {
		next := ""
		d := dir
		for up := 0; up <= limit && !shared[d] && next == ""; up++ {
			next = fragmentIncluder(d, cur, seen, opts, roots, cache)
			d = filepath.Dir(d)
		}
		if next == "" {
			return top, within
		}
		seen[next] = true
		top, cur = next, next
	}
}

// fragmentIncluder is the first fragment in dir, in name order, that
// includes the file at real, has no errors of its own and was not met
// before; "".
func fragmentIncluder(dir, real string, seen map[string]bool, opts Options, roots []string, cache map[string]*Result) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		n := e.Name()
		p := filepath.Join(dir, n)
		if !strings.HasSuffix(n, ".conf") || seen[p] || !isRegular(p) {
			continue
		}
		key := "fragment:" + p
		r, ok := cache[key]
		if !ok {
			r = fragmentConfig(p, opts, append(append([]string{}, roots...), dir))
			cache[key] = r
		}
		if r == nil {
			continue
		}
		for _, inc := range r.Includes {
			if inc == real {
				return p
			}
		}
	}
	return ""
}

// fragmentConfig loads the file at p when it is an nginx fragment that
// includes something and has no errors of its own; nil otherwise.
func fragmentConfig(p string, opts Options, roots []string) *Result {
	head := readHead(p, headSize)
	if !nginx.Detect(head) || !strings.Contains(string(head), "include") {
		return nil
	}
	r := loadNginx(p, opts, roots)
	if !r.fragment || r.template || len(r.Includes) == 0 {
		return nil
	}
	for _, d := range r.Diagnostics {
		if d.Severity == model.Error {
			return nil
		}
	}
	return &r
}

// includer is the main configuration in dir that includes the file at
// real, or ""; main is the first main configuration in dir, or "".
func includer(dir, real string, opts Options, roots []string, cache map[string]*Result) (ep, main string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", ""
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); n == "nginx.conf" || strings.HasSuffix(n, ".conf") {
			names = append(names, n)
		}
	}
	// nginx.conf first: the usual name of the file given to nginx -c.
	sort.SliceStable(names, func(i, j int) bool { return names[i] == "nginx.conf" && names[j] != "nginx.conf" })
	for _, n := range names {
		p := filepath.Join(dir, n)
		if p == real || !isRegular(p) {
			continue
		}
		r, ok := cache[p]
		if !ok {
			r = mainConfig(p, opts, append(append([]string{}, roots...), dir))
			cache[p] = r
		}
		if r == nil {
			continue
		}
		if main == "" {
			main = p
		}
		for _, inc := range r.Includes {
			if inc == real {
				return p, main
			}
		}
	}
	return "", main
}

// mainConfig loads the file at p when it is a whole nginx configuration
// without errors of its own; nil otherwise.
func mainConfig(p string, opts Options, roots []string) *Result {
	if !nginx.Detect(opts.source().head(p, headSize)) {
		return nil
	}
	r := loadNginx(p, opts, roots)
	if r.fragment {
		return nil
	}
	for _, d := range r.Diagnostics {
		if d.Severity == model.Error {
			return nil
		}
	}
	return &r
}

// repositoryRoot is the nearest directory at or above dir that holds .git
// (a directory, or a file in a worktree), or "".
func repositoryRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// throughNote says in the report that a file was linted through a main
// configuration found for it.
func throughNote(path, ep string, fragment bool) model.Diagnostic {
	if fragment {
		return model.Diagnostic{
			Code: nginx.CodeInclude, Severity: model.Note, Pos: model.Pos{File: path},
			Message: "linted through " + shown(ep) + ", which includes this file (found in the directories above it); it is a fragment too, and no configuration found includes it (name entry-points in .proxylint.yaml to choose the main configuration)",
		}
	}
	return model.Diagnostic{
		Code: nginx.CodeInclude, Severity: model.Note, Pos: model.Pos{File: path},
		Message: "linted through " + shown(ep) + ", which includes this file (found in the directories above it; name entry-points in .proxylint.yaml to choose the main configuration)",
	}
}

// prefixNote says in the report where a fragment's includes were resolved
// from.
func prefixNote(path, main string) model.Diagnostic {
	return model.Diagnostic{
		Code: nginx.CodeInclude, Severity: model.Note, Pos: model.Pos{File: path},
		Message: "relative includes resolved from " + shown(filepath.Dir(main)) + ", the directory of " + shown(main) + ", the main configuration above this fragment (no main configuration found includes it)",
	}
}

// shown is p relative to the working directory when it can be.
func shown(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil {
			return rel
		}
	}
	return p
}
