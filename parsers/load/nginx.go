package load

import (
	"path/filepath"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

func loadNginx(path string, opts Options, roots []string) Result {
	target := opts.Target
	if target.Product != model.Nginx && target.Product != model.Angie {
		target = model.Target{Product: model.Nginx}
	}
	cfg := nginx.Load(path, nginx.Options{
		Roots: roots, Prefix: opts.prefix, MaxFileSize: opts.MaxFileSize,
		MaxIncludes: opts.MaxIncludes, MaxIncludeBytes: opts.MaxTotalSize,
	})
	res := Result{Diagnostics: cfg.Diagnostics, template: cfg.Template, fragment: cfg.Main != nil && cfg.Fragment()}
	for _, u := range cfg.Unread {
		if !filepath.IsAbs(u.Name) {
			res.unreadRelative = true
		}
	}
	for i, f := range cfg.Files {
		res.Files = append(res.Files, &model.File{Path: f.Path, Source: f.Source, Comments: f.Comments})
		if i > 0 && f.Real != "" {
			res.Includes = append(res.Includes, f.Real)
		}
	}
	if cfg.Main != nil && !cfg.Syntax {
		res.Proxies = append(res.Proxies, nginx.Build(cfg, target))
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
