package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/config"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

// configGroup is the paths of a run that one configuration file governs:
// each linted file is linted under the .proxylint.yaml nearest above it, up
// to the repository root (config.Find), as ruff and shellcheck find theirs,
// whatever the working directory.
type configGroup struct {
	// config is the configuration file as found ("" for none); key its
	// absolute form.
	config, key string
	paths       []string
	// skipped, shared by the groups of a run, holds the files (absolute)
	// the walks have left out, so that each is counted and told once.
	skipped map[string]bool
}

// configGroups splits the paths by the configuration file that governs
// them, in the order they are named. --config and --no-config make one
// group of every path.
func configGroups(f *lintFlags, paths []string) ([]*configGroup, error) {
	if f.noConfig || f.config != "" {
		return []*configGroup{{config: f.config, key: f.config, paths: paths}}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var groups []*configGroup
	byKey := map[string]*configGroup{}
	add := func(cfg, p string) *configGroup {
		key := cfg
		if key != "" {
			if abs, err := filepath.Abs(cfg); err == nil {
				key = abs
			}
			if rel, err := filepath.Rel(wd, cfg); err == nil {
				cfg = rel
			}
		}
		g := byKey[key]
		if g == nil {
			g = &configGroup{config: cfg, key: key}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.paths = append(g.paths, p)
		return g
	}
	// The command line's --exclude, which applies under every file.
	var flagExclude []string
	for _, e := range f.exclude {
		if pat, err := config.ExcludePattern(e, wd); err == nil {
			flagExclude = append(flagExclude, pat)
		}
	}
	// addDir adds a directory walked, under the file that applies to it,
	// and the directories below it with a configuration file of their
	// own, under theirs. Their walks still read the files below them, as
	// context for the others (an include, the manifests joined as one
	// deployment), but their findings are those of the group their own
	// file governs, which reads them with what is beside and below them,
	// as the language server does. A directory the file above excludes,
	// or --exclude does, is not looked into.
	var addDir func(dir string) error
	addDir = func(dir string) error {
		cfg, err := config.Find(dir)
		if err != nil {
			return err
		}
		add(cfg, dir)
		exclude := flagExclude
		if cfg != "" {
			// A file that cannot be read is reported when its group
			// is linted.
			if c, err := config.LoadMax(cfg, f.fileLimit()); err == nil {
				exclude = append(append([]string{}, c.Exclude...), flagExclude...)
			}
		}
		nested, err := config.Nested(dir, func(abs string) bool { return config.Excluded(abs, exclude) })
		if err != nil {
			return err
		}
		for _, n := range nested {
			if err := addDir(n); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range paths {
		if p == "-" {
			from := "-"
			if f.stdinFilename != "" {
				from = f.stdinFilename
			}
			cfg, err := config.ForFile(from)
			if err != nil {
				return nil, err
			}
			add(cfg, p)
			continue
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			// A file, or a path the loader reports it cannot read.
			cfg, err := config.ForFile(p)
			if err != nil {
				return nil, err
			}
			add(cfg, p)
			continue
		}
		if err := addDir(p); err != nil {
			return nil, err
		}
	}
	return groups, nil
}

// analyze lints the paths, each group of them under its configuration
// file (configGroups), and joins what the groups found. A finding in a
// file is the group's whose configuration governs that file, when that
// group read it: a file another group reads through an include is linted
// there in context, but judged under its own configuration; a file only
// another group read keeps that group's findings, so none goes silent. ok
// is false after a usage or configuration error, which it has reported.
func analyze(f *lintFlags, paths []string, stderr io.Writer) (*settings, *linted, bool) {
	groups, err := configGroups(f, paths)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %s\n", report.Escape(err.Error()))
		return nil, nil, false
	}
	switch len(groups) {
	case 0:
		return analyzeGroup(f, &configGroup{}, stderr)
	case 1:
		return analyzeGroup(f, groups[0], stderr)
	}
	var merged *settings
	mdl := &model.Model{}
	run := &linted{model: mdl}
	var findings []rules.Finding
	governs := governing{}
	seenFile := map[string]bool{}
	seenDiag, seenRunDiag := map[model.Diagnostic]bool{}, map[model.Diagnostic]bool{}
	seenProxy := map[string]bool{}
	failOn := map[string]model.Severity{}
	type result struct {
		g *configGroup
		l *linted
	}
	var results []result
	skipped := map[string]bool{}
	for _, g := range groups {
		g.skipped = skipped
	}
	// read holds, by group, the files (fileID) its run read.
	read := map[string]map[string]bool{}
	for _, g := range groups {
		s, l, ok := analyzeGroup(f, g, stderr)
		if !ok {
			return nil, nil, false
		}
		results = append(results, result{g, l})
		m := l.model
		failOn[g.key] = s.failOn
		if read[g.key] == nil {
			read[g.key] = map[string]bool{}
		}
		for _, file := range m.Files {
			read[g.key][fileID(file)] = true
		}
		if merged == nil {
			merged = s
		} else {
			if s.baseline != merged.baseline && !f.given["baseline"] && f.writeBaseline == "" {
				fmt.Fprintf(stderr, "proxylint: %s and %s name different baselines; a run reads one (name it with --baseline)\n", orNone(merged.configPaths), orNone(s.configPaths))
				return nil, nil, false
			}
			merged.skipped += s.skipped
			merged.configPaths = append(merged.configPaths, s.configPaths...)
			merged.load.EntryPoints = append(merged.load.EntryPoints, s.load.EntryPoints...)
		}
	}
	for _, r := range results {
		m := r.l.model
		ids := map[string]string{}
		for _, file := range m.Files {
			ids[file.Path] = fileID(file)
			if !seenFile[file.Path] {
				seenFile[file.Path] = true
				mdl.Files = append(mdl.Files, file)
			}
		}
		for _, d := range m.Diagnostics {
			if !seenDiag[d] {
				seenDiag[d] = true
				mdl.Diagnostics = append(mdl.Diagnostics, d)
			}
		}
		for _, d := range r.l.diagnostics {
			// The loaders' and the analyses' (a path budget
			// exceeded), in each group's order.
			if !seenRunDiag[d] {
				seenRunDiag[d] = true
				run.diagnostics = append(run.diagnostics, d)
			}
		}
		for _, p := range m.Proxies {
			// The main configuration above a fragment is read again
			// by the fragment's group, for context: one proxy.
			entry := p.Entry
			if abs, err := filepath.Abs(entry); err == nil && entry != "" {
				entry = abs
			}
			if entry == "" || !seenProxy[entry] {
				seenProxy[entry] = true
				mdl.Proxies = append(mdl.Proxies, p)
			}
		}
		mdl.Services = append(mdl.Services, m.Services...)
		mdl.Workloads = append(mdl.Workloads, m.Workloads...)
		if run.chain == nil {
			run.chain = r.l.chain
		}
		for _, fd := range r.l.findings {
			// Left to the group that governs the file, when that
			// group read it.
			if fd.Pos.File != "" {
				k := governs.of(fd.Pos.File)
				id, ok := ids[fd.Pos.File]
				if !ok {
					id = absPath(fd.Pos.File)
				}
				if k != r.g.key && read[k][id] {
					continue
				}
			}
			findings = append(findings, fd)
		}
	}
	merged.failOnOf = func(file string) model.Severity {
		if s, ok := failOn[governs.of(file)]; ok && file != "" {
			return s
		}
		return merged.failOn
	}
	run.findings = rules.Sort(findings)
	run.files = mdl.Files
	return merged, run, true
}

// linted is what a run read and found: the model the loaders read, the
// request paths the engine linked it into, the loaders' and the
// analyses' diagnostics, and the findings.
type linted struct {
	model *model.Model
	chain *model.Chain
	// files are the model's files as reports name them (realNames).
	files       []*model.File
	diagnostics []model.Diagnostic
	findings    []rules.Finding
}

// fileID names a file of a model however the run reached it: its real
// path, or its absolute path when it was not read from the disk.
func fileID(f *model.File) string {
	if f.Real != "" {
		return f.Real
	}
	return absPath(f.Path)
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func orNone(paths []string) string {
	if len(paths) == 0 {
		return "the command line"
	}
	return paths[0]
}

// governing caches, by directory, the configuration file (absolute, "" for
// none) that governs the files there.
type governing map[string]string

func (g governing) of(file string) string {
	dir := filepath.Dir(file)
	if file == "-" {
		dir = "."
	}
	if k, ok := g[dir]; ok {
		return k
	}
	k, err := config.Find(dir)
	if err == nil && k != "" {
		if abs, err := filepath.Abs(k); err == nil {
			k = abs
		}
	}
	g[dir] = k
	return k
}
