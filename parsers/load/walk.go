package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/internal/regular"
	"github.com/proxylint/proxylint/model"
)

// walker lists the files under a named directory. It follows symbolic
// links, to directories as to files (Debian's sites-enabled/ holds links
// into sites-available/; a deployment directory may itself be a link),
// and never enters a directory twice, so a link cycle ends the descent.
type walker struct {
	// allowed are the real directories links may lead into.
	allowed []string
	exclude []string
	skip    func(path, reason string)
	files   []string
	diags   []model.Diagnostic
	seen    map[string]string // real directory -> the path it was walked as
}

// walk lists the regular files under dir in lexical order, skipping hidden
// directories and excluded paths. Entries it cannot read (a directory it
// cannot list, a path too long, a link loop) are load errors: the run must
// not call a tree clean that it did not read.
//
// A symbolic link is followed only into the linted tree (roots: the working
// directory, the named paths, --include-root), or into the directory that
// holds dir when dir lies below the working directory or outside it, as
// sites-enabled/ links into sites-available/ beside it: a committed link
// to / must not make proxylint read, and print, the rest of the machine.
func walk(dir string, roots, exclude []string, skip func(path, reason string)) ([]string, []model.Diagnostic) {
	w := &walker{exclude: exclude, skip: skip, seen: map[string]string{}}
	for _, r := range roots {
		if real := realPath(r); real != "" {
			w.allowed = append(w.allowed, real)
		}
	}
	if real, wd := realPath(dir), realPath("."); real != "" && wd != "" && !within(wd, []string{real}) {
		w.allowed = append(w.allowed, filepath.Dir(real))
	}
	if skip == nil {
		w.skip = func(string, string) {}
	}
	w.dir(dir)
	sort.Strings(w.files)
	return w.files, w.diags
}

func (w *walker) dir(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		w.fail(dir, fmt.Sprintf("cannot read directory %s: %v", dir, unwrap(err)))
		return
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	if first, ok := w.seen[real]; ok {
		w.skip(dir, fmt.Sprintf("directory already read as %s (a symbolic link cycle or a second link)", first))
		return
	}
	w.seen[real] = dir
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.fail(dir, fmt.Sprintf("cannot list directory %s: %v", dir, unwrap(err)))
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p) // follows symbolic links
		if err != nil {
			if e.Type()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist) {
				if !excluded(p, w.exclude) {
					w.skip(p, "a symbolic link to a file that does not exist")
				}
				continue
			}
			w.fail(p, fmt.Sprintf("cannot read %s: %v", p, unwrap(err)))
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if real := realPath(p); !within(real, w.allowed) {
				w.skip(p, fmt.Sprintf("a symbolic link to %s, outside the linted tree (widen it with --include-root)", real))
				continue
			}
		}
		if fi.IsDir() {
			switch {
			case strings.HasPrefix(e.Name(), "."):
				w.skip(p+string(filepath.Separator), "hidden directory")
			case excluded(p, w.exclude):
				w.skip(p+string(filepath.Separator), "excluded")
			default:
				w.dir(p)
			}
			continue
		}
		switch {
		case excluded(p, w.exclude):
			w.skip(p, "excluded")
		case !fi.Mode().IsRegular():
			w.skip(p, "not a regular file ("+regular.FileType(fi.Mode())+")")
		default:
			w.files = append(w.files, p)
		}
	}
}

func (w *walker) fail(path, msg string) {
	w.diags = append(w.diags, loadError(path, msg))
}

// within reports whether the real path p lies in one of the real
// directories dirs.
func within(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || d == string(filepath.Separator) || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
