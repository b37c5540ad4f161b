package load

import (
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

func loadNginx(path string, opts Options, roots []string) Result {
	target := opts.Target
	if target.Product != model.Nginx && target.Product != model.Angie {
		target = model.Target{Product: model.Nginx}
	}
	cfg := nginx.Load(path, nginx.Options{
		Roots: roots, MaxFileSize: opts.MaxFileSize,
		MaxIncludes: opts.MaxIncludes, MaxIncludeBytes: opts.MaxTotalSize,
	})
	// What nginx -t refuses beyond its reader: unknown directives,
	// contexts, argument counts and values.
	cfg.Check(target, opts.Directives)
	res := Result{Diagnostics: cfg.Diagnostics}
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
