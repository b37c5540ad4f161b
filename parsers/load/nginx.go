package load

import (
	"path/filepath"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

func loadNginx(path string, opts Options, roots []string) Result {
	if r, ok := loadDumpFile(path, opts); ok {
		return r
	}
	cfg := nginx.Load(path, nginxOptions(opts, roots))
	if opts.Building != nil {
		var read int64
		for _, f := range cfg.Files {
			read += int64(len(f.Source))
		}
		defer opts.Building(read)()
	}
	return nginxResult(cfg, opts, onDisk)
}

// onDisk and inMemory say whether a file of a configuration, by its real
// path, was read from the disk (model.File.Real).
func onDisk(string) bool   { return true }
func inMemory(string) bool { return false }

// nginxOptions are the reader's options for a load: the tree includes may
// read and the budgets.
func nginxOptions(opts Options, roots []string) nginx.Options {
	return nginx.Options{
		Roots: roots, Prefix: opts.prefix, MaxFileSize: opts.MaxFileSize,
		MaxIncludes: opts.MaxIncludes, MaxIncludeBytes: opts.MaxTotalSize,
		FS: opts.source().nginxFS(),
	}
}

// nginxResult turns a loaded nginx configuration into a loader's result.
// disk says which files, by their real paths, were read from the disk.
func nginxResult(cfg *nginx.Config, opts Options, disk func(real string) bool) Result {
	target := opts.target(model.Nginx, model.Angie)
	// What nginx -t refuses beyond its reader: unknown directives,
	// contexts, argument counts and values.
	cfg.Check(target, opts.Directives)
	res := Result{Diagnostics: cfg.Diagnostics, template: cfg.Template, fragment: cfg.Main != nil && cfg.Fragment()}
	for _, u := range cfg.Unread {
		if !filepath.IsAbs(u.Name) {
			res.unreadRelative = true
		}
	}
	for i, f := range cfg.Files {
		mf := &model.File{Path: f.Path, Source: f.Source, Comments: f.Comments, Editor: f.Editor()}
		if f.Real != "" && disk(f.Real) {
			mf.Real = f.Real
		}
		res.Files = append(res.Files, mf)
		if i > 0 && f.Real != "" {
			res.Includes = append(res.Includes, f.Real)
		}
	}
	if opts.NginxRead != nil && cfg.Main != nil {
		opts.NginxRead(cfg, target)
	}
	if cfg.Main != nil && !cfg.Syntax {
		if !cfg.RefusedFrom.IsZero() {
			// The newer releases of the range refuse the file (the
			// check said so): it is linted for the older ones.
			target.Before = cfg.RefusedFrom
		}
		res.Proxies = append(res.Proxies, nginx.BuildReleasing(cfg, target))
	}
	return res
}

// walkedTemplate turns the error that says a file is a template into a
// note when the file was found in a directory rather than named: a
// repository keeps templates beside the configurations rendered from them,
// and the walk reports each once, lints nothing in it, and goes on.
func walkedTemplate(r *Result) {
	if !r.template {
		return
	}
	for i, d := range r.Diagnostics {
		if d.Code == nginx.CodeSyntax && d.Fatal {
			d.Severity, d.Fatal = model.Note, false
			d.Message += "; it was not linted"
			r.Diagnostics[i] = d
		}
	}
}
