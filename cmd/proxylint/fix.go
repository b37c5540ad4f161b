package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

// fileFix is a file the fixes change, as read and as fixed.
type fileFix struct {
	// path is the file's name in the findings (realNames); real the
	// file on disk it was read from, "" for standard input or the
	// files of an nginx -T dump.
	path, real string
	old, fixed []byte
	// edits made old into fixed.
	edits []rules.Edit
}

// fixFiles applies the fixes the pipeline selected (rules.FixStep: those
// that apply at the threshold, rules.Safe for --fix, rules.Unsafe with
// --unsafe-fixes, and can be applied together) to the run's files, and
// returns the files they change, by name.
func fixFiles(files []*model.File, set rules.FixSet) ([]fileFix, error) {
	var out []fileFix
	for path, edits := range set.Edits {
		var f *model.File
		for _, mf := range files {
			if mf.Path == path {
				f = mf
				break
			}
		}
		if f == nil {
			return nil, fmt.Errorf("%s: a fix edits a file this run did not read", report.Escape(path))
		}
		fixed, err := rules.ApplyEdits(f.Source, edits)
		if err != nil {
			return nil, err
		}
		out = append(out, fileFix{path: path, real: f.Real, old: f.Source, fixed: fixed, edits: edits})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// writeDiff prints a unified diff of every fix, naming each file relative
// to root (the repository's top), so that it applies there with git apply
// or patch -p1. Every name is checked before anything is written: a file
// outside root, or whose name cannot be written into a diff, stops it.
func writeDiff(w io.Writer, fixes []fileFix, root, wd string) error {
	names := make([]string, len(fixes))
	for i, fx := range fixes {
		name, err := diffName(fx, root, wd)
		if err != nil {
			return err
		}
		names[i] = name
	}
	for i, fx := range fixes {
		body, err := editedHunks(fx.old, fx.edits)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "--- "+quoteDiffName("a/", names[i])+"\n+++ "+quoteDiffName("b/", names[i])+"\n"+body); err != nil {
			return err
		}
	}
	return nil
}

// diffName is a fixed file's path relative to root, with forward slashes.
func diffName(fx fileFix, root, wd string) (string, error) {
	p, base := fx.real, root
	if p == "" {
		p = absIn(wd, fx.path)
	} else if r, err := filepath.EvalSymlinks(root); err == nil {
		base = r
	}
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside %s, the repository root the diff names files from (so that it applies there with git apply or patch -p1); name another with --root", report.Escape(fx.path), report.Escape(root))
	}
	rel = filepath.ToSlash(rel)
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return "", fmt.Errorf("the name of %s holds a control character (%s), which a diff cannot carry safely: patch would read it as the end of the name or a terminal as a command; rename the file", report.Escape(fx.path), report.Escape(string(c)))
		}
	}
	return rel, nil
}

// quoteDiffName writes prefix+name for a diff's header as git does: in
// double quotes, with C escapes (octal for every byte above ASCII), when
// the name holds a quote, a backslash, a tab or a byte above ASCII; with a
// tab after it when it holds a blank, so that patch reads the blank as
// part of the name. git apply and GNU patch read both forms. Control
// characters other than tab were refused before (diffName).
func quoteDiffName(prefix, name string) string {
	quote := false
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' || c == '\t' || c >= 0x80 {
			quote = true
			break
		}
	}
	if !quote {
		if strings.Contains(name, " ") {
			return prefix + name + "\t"
		}
		return prefix + name
	}
	var b strings.Builder
	b.WriteByte('"')
	b.WriteString(prefix)
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c >= 0x80:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// applyFixes writes the fixed files, each the real file on disk (a link
// the configuration was reached through stays a link), through a
// temporary file renamed over it, with its mode and owner kept. A fix may
// change several files (an upstream block in one, the proxy_pass in
// another), so when any file was not read from the disk, lies outside the
// named paths and the repository (repo; "" outside one), or is not what
// was read (changed, or its path now leads elsewhere), none is written: a
// fix is applied whole or not at all.
func applyFixes(fixes []fileFix, named []string, repo string, stderr io.Writer) (written int, ok bool) {
	ok = true
	roots := fixRoots(named, repo)
	for _, fx := range fixes {
		name := report.Escape(fx.path)
		switch {
		case fx.real == "":
			fmt.Fprintf(stderr, "proxylint: --fix: %s was not read from a file (standard input, or a file of an nginx -T dump); no file changed\n", name)
			ok = false
		case !insideAny(fx.real, roots):
			where := "the linted paths"
			if repo != "" {
				where = "the linted paths and the repository"
			}
			fmt.Fprintf(stderr, "proxylint: --fix: %s is outside %s; no file changed\n", name, where)
			ok = false
		default:
			if _, err := unchanged(fx); err != nil {
				fmt.Fprintf(stderr, "proxylint: --fix: %s changed since it was read; no file changed\n", name)
				ok = false
			}
		}
	}
	if !ok {
		return 0, false
	}
	for _, fx := range fixes {
		if err := writeFix(fx); err != nil {
			fmt.Fprintf(stderr, "proxylint: --fix: %s: %s\n", report.Escape(fx.path), report.Escape(unwrapPath(err).Error()))
			ok = false
			continue
		}
		written++
	}
	return written, ok
}

// writeFix replaces the real file of fx with its fixed content, checking
// once more just before that it is what was read. A file with several
// names (hard links: sites-enabled/x and sites-available/x made with ln)
// is rewritten in place, so that every name keeps showing the one file;
// renamed over, the name written would become a file of its own and the
// others keep the old text.
func writeFix(fx fileFix) error {
	fi, err := unchanged(fx)
	if err != nil {
		return errors.New("changed since it was read; not written")
	}
	if links, ok := linkCount(fi); ok && links > 1 {
		return rewriteInPlace(fx)
	}
	uid, gid := ownerOf(fi)
	return renameInto(fx.real, fi.Mode().Perm(), func(w io.Writer) error {
		if f, ok := w.(*os.File); ok && uid >= 0 {
			// Root's fix keeps the file its owner's.
			_ = f.Chown(uid, gid)
		}
		_, err := w.Write(fx.fixed)
		return err
	})
}

// rewriteInPlace writes the fixed content of fx over the file itself and
// cuts it to its new length; when that fails, the old content is written
// back, so that the file is left as it was or as fixed.
func rewriteInPlace(fx fileFix) (err error) {
	f, err := os.OpenFile(fx.real, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	write := func(b []byte) error {
		if _, err := f.WriteAt(b, 0); err != nil {
			return err
		}
		if err := f.Truncate(int64(len(b))); err != nil {
			return err
		}
		return f.Sync()
	}
	if err := write(fx.fixed); err != nil {
		if rerr := write(fx.old); rerr != nil {
			return fmt.Errorf("%w; and restoring what was read failed too: %w", err, rerr)
		}
		return err
	}
	return nil
}

// unchanged checks that the real file of fx is still a regular file at
// the end of no link, holding what was read, and returns its information.
func unchanged(fx fileFix) (os.FileInfo, error) {
	fi, err := os.Lstat(fx.real)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if r, err := filepath.EvalSymlinks(fx.real); err != nil || r != fx.real {
		return nil, errors.New("its path leads elsewhere")
	}
	now, err := load.ReadRegular(fx.real, int64(len(fx.old))+1)
	if err != nil || !bytes.Equal(now, fx.old) {
		return nil, errors.New("content changed")
	}
	return fi, nil
}

// fixRoots are the real directories and files --fix may write in: the
// named paths and the repository.
func fixRoots(named []string, repo string) []string {
	var roots []string
	if repo != "" {
		named = append(append([]string{}, named...), repo)
	}
	for _, n := range named {
		if n == load.StdinPath {
			continue
		}
		root, err := filepath.EvalSymlinks(n)
		if err != nil {
			continue
		}
		if root, err = filepath.Abs(root); err == nil {
			roots = append(roots, root)
		}
	}
	return roots
}

// insideAny reports whether the real path p is one of roots or lies below
// one.
func insideAny(p string, roots []string) bool {
	for _, r := range roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// repository is the checkout a run works in: --root, else the nearest
// directory at or above the working directory that holds .git; "" outside
// one. --fix writes in it besides the named paths, and a symbolic link
// inside it that leads out of it is not written through.
func repository(f *lintFlags, wd string) string {
	if f.root != "" {
		return f.root
	}
	return gitTop(wd)
}

// gitTop is the nearest directory at or above dir that holds .git, or "".
func gitTop(wd string) string {
	for dir := wd; dir != ""; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	return ""
}
