// Package load turns the paths a user names into proxylint's model: it
// finds configuration files in directories, tells nginx from Envoy by name
// and content, runs the loader for each, and assembles one model.Model.
package load

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/kube"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// Kinds of configuration.
const (
	KindNginx = "nginx"
	KindEnvoy = "envoy"
)

// Options control loading.
type Options struct {
	// Kind forces every file to be read as "nginx" or "envoy"; empty
	// detects it per file.
	Kind string
	// Target is the proxy release the configurations are for.
	Target model.Target
	// IncludeRoots widen the tree includes may read from, beyond the
	// working directory and the directories of the named paths.
	IncludeRoots []string
	// Exclude skips paths (matched against the path as walked, its
	// absolute form and its base name, with filepath.Match).
	Exclude []string
	// EntryPoints are main configuration files through which the files
	// they include are linted when those are loaded (entry.go).
	EntryPoints []string

	// MaxFileSize bounds one file, MaxTotalSize what one run reads and
	// what one nginx configuration expands to through its includes (each
	// inclusion counted), MaxIncludes the include expansions of one nginx
	// configuration; the Default* values when zero.
	MaxFileSize, MaxTotalSize int64
	MaxIncludes               int
	// OnSkip, when set, hears of every file a directory walk leaves out,
	// and why.
	OnSkip func(path, reason string)
}

func (o *Options) skip(path, reason string) {
	if o.OnSkip != nil {
		o.OnSkip(path, reason)
	}
}

func (o Options) withDefaults() Options {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.MaxTotalSize <= 0 {
		o.MaxTotalSize = DefaultMaxTotalSize
	}
	if o.MaxIncludes <= 0 {
		o.MaxIncludes = DefaultMaxIncludes
	}
	return o
}

func fatal(diags []model.Diagnostic) bool {
	for _, d := range diags {
		if d.Fatal {
			return true
		}
	}
	return false
}

// realRoots are the real paths of the roots a named directory p may lead
// into: the working directory, --include-root, and p itself unless it is
// a symbolic link below the working directory (a committed link to /
// named in a CI script).
func realRoots(roots []string, p string) []string {
	var out []string
	lexicalInside := !filepath.IsAbs(p) && p != ".." && !strings.HasPrefix(filepath.Clean(p), ".."+string(filepath.Separator))
	for _, r := range roots {
		if lexicalInside && r == p {
			continue
		}
		if real := realPath(r); real != "" {
			out = append(out, real)
		}
	}
	return out
}

// statError says why a named path cannot be read, naming the target of a
// dangling symbolic link.
func statError(p string, err error) string {
	if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist) {
		target, _ := os.Readlink(p)
		return fmt.Sprintf("cannot read %s: a symbolic link to %s, which does not exist", p, target)
	}
	return fmt.Sprintf("cannot read %s: %v", p, unwrap(err))
}

// loader loads one file of a kind into proxies and files of the model.
type loader func(path string, opts Options, roots []string) Result

// Result is what a loader produced for one file.
type Result struct {
	Proxies     []*model.Proxy
	Files       []*model.File
	Diagnostics []model.Diagnostic
	// Includes lists the real paths of the files this one pulled in.
	Includes []string
}

// loaderFor returns the loader of a kind.
func loaderFor(kind string) (loader, bool) {
	switch kind {
	case KindNginx:
		return loadNginx, true
	case KindEnvoy:
		return loadEnvoy, true
	case KindKube:
		return loadKube, true
	}
	return nil, false
}

// Load reads every configuration under paths.
func Load(paths []string, opts Options) *model.Model {
	m, _ := LoadScoped(paths, opts)
	return m
}

// LoadScoped reads every configuration under paths, and says which files'
// findings concern the run: all of them, unless a file was linted through
// an entry point that was not named itself (see entry.go).
func LoadScoped(paths []string, opts Options) (*model.Model, *Scope) {
	m := &model.Model{}
	opts = opts.withDefaults()
	roots := includeRoots(append(append([]string{}, paths...), opts.EntryPoints...), opts.IncludeRoots)
	var items []item
	namedExcluded := false
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			m.Diagnostics = append(m.Diagnostics, loadError(p, statError(p, err)))
			continue
		}
		if !fi.IsDir() {
			if excludedNamed(p, opts.Exclude) {
				// A deliberate choice, as when a pre-commit hook names a
				// changed file under vendor/: reported as skipped.
				opts.skip(p, "excluded")
				namedExcluded = true
				continue
			}
			if !fi.Mode().IsRegular() {
				m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("cannot read %s: %v", p, regular(fi))))
				continue
			}
			kind, err := detect(p, opts.Kind, true)
			if err != nil {
				m.Diagnostics = append(m.Diagnostics, loadError(p, err.Error()))
				continue
			}
			real := realPath(p)
			items = append(items, item{p, kind, real, true})
			continue
		}
		if excluded(p, opts.Exclude) {
			opts.skip(p, "excluded")
			continue
		}
		if real := realPath(p); real != "" && !within(real, realRoots(roots, p)) {
			m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("cannot read %s: a symbolic link to %s, outside the working directory; name %s itself, or widen the tree with --include-root", p, real, real)))
			continue
		}
		files, diags := walk(p, roots, opts.Exclude, opts.OnSkip)
		m.Diagnostics = append(m.Diagnostics, diags...)
		found := 0
		for _, f := range files {
			kind, err := detect(f, opts.Kind, false)
			switch {
			case err != nil:
				m.Diagnostics = append(m.Diagnostics, loadError(f, err.Error()))
			case kind == "":
				opts.skip(f, "not an nginx or Envoy configuration")
			default:
				found++
				items = append(items, item{f, kind, realPath(f), false})
			}
		}
		if found == 0 && len(diags) == 0 {
			m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("no nginx or Envoy configuration found in %s", p)))
		}
	}
	if len(items) == 0 && len(paths) > 0 && !namedExcluded && !fatal(m.Diagnostics) {
		m.Diagnostics = append(m.Diagnostics, loadError(paths[0], fmt.Sprintf("no nginx or Envoy configuration found in %s", strings.Join(paths, ", "))))
	}

	results := loadAll(items, opts, roots)
	included := map[string]bool{}
	for _, r := range results {
		for _, inc := range r.Includes {
			included[inc] = true
		}
	}
	items, results, scope := withEntryPoints(items, results, included, opts, roots)
	seenFile := map[string]bool{}
	seenEntry := map[string]bool{}
	named := map[*model.Proxy]bool{}
	for i, it := range items {
		// A file that another loaded configuration includes is linted
		// through it, in its real context, not a second time alone.
		if included[it.real] || (it.real != "" && seenEntry[it.real]) {
			continue
		}
		seenEntry[it.real] = true
		r := results[i]
		for _, p := range r.Proxies {
			named[p] = it.explicit
		}
		m.Proxies = append(m.Proxies, r.Proxies...)
		m.Diagnostics = append(m.Diagnostics, r.Diagnostics...)
		for _, f := range r.Files {
			if !seenFile[f.Path] {
				seenFile[f.Path] = true
				m.Files = append(m.Files, f)
			}
		}
	}
	for p, n := range named {
		p.Named = n
	}
	return m, scope
}

// loadAll reads the items in parallel, one file per available core; the
// loaders share no state, and results keep the items' order.
//
// Once the files read reach opts.MaxTotalSize, the items not yet loaded
// are load errors: the run stops reading instead of running out of memory.
func loadAll(items []item, opts Options, roots []string) []Result {
	results := make([]Result, len(items))
	next := make(chan int)
	var wg sync.WaitGroup
	var total atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if n := total.Load(); n > opts.MaxTotalSize {
					results[i] = Result{Diagnostics: []model.Diagnostic{loadError(items[i].path, fmt.Sprintf(
						"%s was not read: the files read before it hold %d bytes, more than the %d allowed in one run (raise the limit with --max-total-size)",
						items[i].path, n, opts.MaxTotalSize))}}
					continue
				}
				results[i] = loadOne(items[i], opts, roots)
				for _, f := range results[i].Files {
					total.Add(int64(len(f.Source)))
				}
			}
		}()
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func loadOne(it item, opts Options, roots []string) Result {
	load, ok := loaderFor(it.kind)
	if !ok {
		return Result{Diagnostics: []model.Diagnostic{loadError(it.path, fmt.Sprintf("%s: %s configurations are not supported", it.path, it.kind))}}
	}
	return load(it.path, opts, roots)
}

func loadError(path, msg string) model.Diagnostic {
	return model.Diagnostic{Code: nginx.CodeLoad, Severity: model.Error, Pos: model.Pos{File: path}, Message: msg, Fatal: true}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// includeRoots is the linted tree: the working directory, the directories
// named and those holding the files named, and any roots added by flag.
func includeRoots(paths, extra []string) []string {
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, wd)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			roots = append(roots, p)
		} else {
			roots = append(roots, filepath.Dir(p))
		}
	}
	return append(roots, extra...)
}

func excluded(p string, patterns []string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	for _, pat := range patterns {
		if abs != p && excluded(abs, []string{pat}) {
			return true
		}
		if ok, _ := filepath.Match(pat, p); ok {
			return true
		}
		if ok, _ := filepath.Match(pat, filepath.Base(p)); ok {
			return true
		}
		if strings.HasSuffix(pat, "/**") && strings.HasPrefix(filepath.ToSlash(p)+"/", strings.TrimSuffix(pat, "**")) {
			return true
		}
	}
	return false
}

// nginxDirs are directory names that hold nginx configuration fragments.
var nginxDirs = map[string]bool{
	"nginx": true, "conf.d": true, "sites-available": true, "sites-enabled": true,
	"snippets": true, "http.d": true, "stream.d": true, "vhosts.d": true, "servers": true, "locations": true,
}

// detect tells the kind of a file: forced, by name, or by content. For a
// file named explicitly an unknown kind is an error; for one found in a
// directory it is "" (not a configuration).
func detect(path, forced string, explicit bool) (string, error) {
	if forced != "" {
		return forced, nil
	}
	head := readHead(path, 64<<10)
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	switch {
	case (ext == ".yaml" || ext == ".yml" || ext == ".json") && kube.Detect(head):
		return KindKube, nil
	case ext == ".yaml" || ext == ".yml" || ext == ".json":
		if looksEnvoy(head) {
			return KindEnvoy, nil
		}
	case base == "nginx.conf" || ext == ".nginx" || ext == ".vhost":
		return KindNginx, nil
	case ext == ".conf" || nginxDirs[filepath.Base(filepath.Dir(path))] || ext == "":
		if looksNginx(head) {
			return KindNginx, nil
		}
	}
	if explicit {
		if looksNginx(head) || (ext == ".conf" && !looksEnvoy(head)) {
			return KindNginx, nil
		}
		if looksEnvoy(head) {
			return KindEnvoy, nil
		}
		return "", fmt.Errorf("%s: cannot tell whether this is an nginx or an Envoy configuration; name the kind with --kind nginx or --kind envoy", path)
	}
	return "", nil
}

func readHead(path string, n int) []byte {
	f, err := OpenRegular(path)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	buf := make([]byte, n)
	k, _ := f.Read(buf)
	return buf[:k]
}

// looksNginx reports whether the start of a file reads as nginx
// directives: its first statement names a directive nginx knows.
func looksNginx(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	return nginx.LooksLikeConfig(head)
}

// envoyMarkers are words only Envoy configurations use: bootstrap and
// config dump sections, type URLs and filter names, and the fields of the
// xDS resources and fragments (a connection manager, a virtual host) a
// file may hold alone, snake_case or camelCase.
var envoyMarkers = [][]byte{
	[]byte("static_resources"), []byte("staticResources"), []byte("dynamic_resources"), []byte("dynamicResources"),
	[]byte("type.googleapis.com/envoy."), []byte("envoy.extensions."), []byte("envoy.filters."),
	[]byte("http_connection_manager"), []byte("socket_address"), []byte("socketAddress"),
	[]byte("virtual_hosts"), []byte("virtualHosts"), []byte("filter_chains"), []byte("filterChains"),
	[]byte("load_assignment"), []byte("loadAssignment"), []byte("connect_timeout"), []byte("connectTimeout"),
	[]byte("stat_prefix"), []byte("statPrefix"), []byte("retry_policy"), []byte("retryPolicy"),
}

// A Kubernetes object (an EnvoyFilter, a ConfigMap) may quote Envoy
// configuration but is not one: it has apiVersion and kind at its top.
var (
	yamlAPIVersion = regexp.MustCompile(`(?m)^apiVersion\s*:`)
	yamlKind       = regexp.MustCompile(`(?m)^kind\s*:`)
	jsonAPIVersion = regexp.MustCompile(`"apiVersion"\s*:`)
	jsonKind       = regexp.MustCompile(`"kind"\s*:`)
)

func looksEnvoy(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 ||
		(yamlAPIVersion.Match(head) && yamlKind.Match(head)) ||
		(jsonAPIVersion.Match(head) && jsonKind.Match(head)) {
		return false
	}
	for _, m := range envoyMarkers {
		if bytes.Contains(head, m) {
			return true
		}
	}
	return false
}
