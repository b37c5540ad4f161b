package main

import (
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// realNames names every file reached through a symbolic link by the file
// it is, so that findings, --diff, SARIF and github point at the file a
// fix edits and a diff applies to (sites-available/x, not the link
// sites-enabled/x that nginx.conf includes): the findings' positions,
// related places, suppressions and edits move to the real file, named
// relative to the working directory when it lies below it, and each
// finding there gets a related place naming the link it was reached
// through. A file reached through two links (or by two spellings of its
// path) becomes one, and a finding made twice over it is reported once.
// The run's files, diagnostics and findings are renamed; the model is
// left as the loaders wrote it.
func realNames(run *linted, wd string) {
	run.files, run.diagnostics, run.findings = renamed(run.files, run.diagnostics, run.findings, wd)
}

func renamed(files []*model.File, diagnostics []model.Diagnostic, findings []rules.Finding, wd string) ([]*model.File, []model.Diagnostic, []rules.Finding) {
	realWD := wd
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		realWD = r
	}
	// rename maps a path to the name of its file; throughLink marks the
	// paths a link was followed on. One file has one name, however
	// many paths reached it.
	rename := map[string]string{}
	throughLink := map[string]bool{}
	byReal := map[string]string{}
	for _, f := range files {
		if f.Real == "" {
			continue
		}
		name, linked := realName(f.Path, f.Real, wd, realWD)
		if !linked {
			name = f.Path
		}
		if first, ok := byReal[f.Real]; ok {
			name = first
		} else {
			byReal[f.Real] = name
		}
		if linked {
			throughLink[f.Path] = true
		}
		if name != f.Path {
			rename[f.Path] = name
		}
	}
	if len(rename) == 0 {
		return files, diagnostics, findings
	}
	mapPos := func(p model.Pos) model.Pos {
		if n, ok := rename[p.File]; ok {
			p.File = n
		}
		return p
	}

	named := make([]*model.File, 0, len(files))
	seen := map[string]bool{}
	for _, f := range files {
		if n, ok := rename[f.Path]; ok {
			f = &model.File{Path: n, Real: f.Real, Source: f.Source, Comments: f.Comments, Editor: f.Editor}
		}
		if !seen[f.Path] {
			seen[f.Path] = true
			named = append(named, f)
		}
	}
	diags := make([]model.Diagnostic, len(diagnostics))
	for i, d := range diagnostics {
		d.Pos = mapPos(d.Pos)
		diags[i] = d
	}

	out := make([]rules.Finding, 0, len(findings))
	// index finds a finding already made at the same place, to which a
	// second link only adds its note.
	index := map[string]int{}
	for _, f := range findings {
		link := ""
		if throughLink[f.Pos.File] {
			link = f.Pos.File
		}
		f.Pos, f.End = mapPos(f.Pos), mapPos(f.End)
		if len(f.Related) > 0 {
			rel := make([]rules.Related, len(f.Related))
			for i, r := range f.Related {
				r.Pos = mapPos(r.Pos)
				rel[i] = r
			}
			f.Related = rel
		}
		if f.Suppression != nil {
			s := *f.Suppression
			s.Pos = mapPos(s.Pos)
			f.Suppression = &s
		}
		if len(f.Fix.Edits) > 0 {
			edits := make([]rules.Edit, len(f.Fix.Edits))
			for i, e := range f.Fix.Edits {
				if n, ok := rename[e.File]; ok {
					e.File = n
				}
				edits[i] = e
			}
			f.Fix.Edits = edits
		}
		key := sameFinding(f)
		if link != "" {
			note := rules.Related{Pos: model.Pos{File: link}, Message: "reached through the symbolic link " + filepath.ToSlash(relToWD(absIn(wd, link)))}
			if i, ok := index[key]; ok {
				out[i].Related = append(out[i].Related, note)
				continue
			}
			f.Related = append(f.Related, note)
			index[key] = len(out)
		}
		out = append(out, f)
	}
	return named, diags, out
}

// sameFinding identifies a finding by what it says and where, so that one
// made through each of two links to a file is reported once.
func sameFinding(f rules.Finding) string {
	return strings.Join([]string{f.Rule, f.Pos.String(), f.End.String(), f.Message, f.Fix.Message}, "\x00")
}

// realName is the name a file reached as path, whose real path is real,
// is reported under: real relative to the working directory (whose real
// path is realWD) when it lies below it, else real. ok is false when no
// link was followed on the way, and path stays.
func realName(path, real, wd, realWD string) (string, bool) {
	if real == "" {
		return "", false
	}
	lexical := absIn(wd, path)
	if lexical == real {
		return "", false
	}
	// The working directory may itself be reached through a link.
	if rel, err := filepath.Rel(wd, lexical); err == nil && filepath.Join(realWD, rel) == real {
		return "", false
	}
	if rel, err := filepath.Rel(realWD, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel, true
	}
	return real, true
}

// absIn is path made absolute against the directory wd, cleaned.
func absIn(wd, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(wd, path)
	}
	return filepath.Clean(path)
}
