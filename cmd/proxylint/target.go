package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A report or a baseline goes where the path named for it leads: through
// symbolic links to their target, to standard output for /dev/stdout (a
// link to /proc/self/fd/1), into a character device, a terminal or a FIFO
// in place, and over a regular file by rename, so that a reader sees the
// old report or the new, never a mix. Renaming is for regular files only:
// renamed over /dev/null, a temporary file would take the device's place.

// destKind says how a destination is written.
type destKind int

const (
	// destNew is a path where nothing is yet: created by rename.
	destNew destKind = iota
	// destRegular is a regular file, replaced by rename.
	destRegular
	// destInPlace is a character device (a terminal, /dev/null) or a
	// FIFO: opened and written.
	destInPlace
	// destFD is a descriptor the process holds (/dev/stdout,
	// /dev/fd/N, /proc/self/fd/N): written through.
	destFD
)

// destination is where the links from a named path lead.
type destination struct {
	named string
	// path is the file at the end of the links (absolute); fd the
	// descriptor of a destFD.
	path string
	kind destKind
	fd   int
}

// maxLinks bounds the links followed from one path, as the kernel's
// ELOOP does.
const maxLinks = 40

// resolveDestination follows named to where a report would be written. A
// symbolic link inside repo (the repository, "" for no check) that leads
// out of it is refused unless it names a descriptor of the process: a
// link committed as proxylint.sarif must not make a CI run overwrite a
// file of the machine.
func resolveDestination(named, repo string) (destination, error) {
	d := destination{named: named}
	p, err := filepath.Abs(named)
	if err != nil {
		return d, err
	}
	realRepo := ""
	if repo != "" {
		if r, err := filepath.EvalSymlinks(repo); err == nil {
			realRepo = r
		}
	}
	for hops := 0; ; hops++ {
		if fd, ok := descriptorPath(p); ok {
			d.path, d.kind, d.fd = p, destFD, fd
			return d, nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			d.path, d.kind = p, destNew
			return d, nil
		}
		if err != nil {
			return d, unwrapPath(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			d.path = p
			return d, classify(&d, fi)
		}
		if hops == maxLinks {
			return d, errors.New("too many levels of symbolic links")
		}
		link := p
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return d, unwrapPath(err)
		}
		target, err := os.Readlink(p)
		if err != nil {
			return d, unwrapPath(err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = filepath.Clean(target)
		if _, ok := descriptorPath(p); realRepo != "" && !ok && within(filepath.Join(dir, filepath.Base(link)), realRepo) && !within(realAsFarAsItExists(p), realRepo) {
			return d, fmt.Errorf("%s is a symbolic link inside the repository to %s, outside it; refusing to write through it (name the target itself)", relToWD(link), p)
		}
	}
}

// classify sets how the file fi at d.path is written, or says why it is
// not.
func classify(d *destination, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		d.kind = destRegular
	case m.IsDir():
		return errors.New("is a directory")
	case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
		d.kind = destInPlace
	case m&fs.ModeDevice != 0:
		return errors.New("is a block device; proxylint writes no report onto a disk")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, which cannot be opened as a file")
	default:
		return fmt.Errorf("is not a file a report can be written to (%s)", m.Type())
	}
	return nil
}

// descriptorPath reports whether the absolute path p names a descriptor
// of this process (/dev/stdout, /dev/fd/N, /proc/self/fd/N), and which.
// These are links the kernel makes; following them to the file they
// stand for would write around the descriptor.
func descriptorPath(p string) (int, bool) {
	switch p {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"} {
		if rest, ok := strings.CutPrefix(p, dir); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && strconv.Itoa(n) == rest {
				return n, true
			}
		}
	}
	return 0, false
}

// realAsFarAsItExists resolves the links of the longest leading part of p
// that exists; the rest is kept as written.
func realAsFarAsItExists(p string) string {
	rest := ""
	for q := p; ; {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(q)
		if parent == q {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
}

// relToWD names p relative to the working directory when it lies below it.
func relToWD(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// writeDestination writes what write produces to d: standard output and
// standard error are the writers given (an in-process run has its own),
// another descriptor is written through, a device or FIFO in place, and a
// regular file (or a new one) through a temporary file renamed into place,
// never over one of inputs, the files the run read.
func writeDestination(d destination, stdout, stderr io.Writer, inputs []string, write func(io.Writer) error) error {
	switch d.kind {
	case destFD:
		switch d.fd {
		case 1:
			return write(stdout)
		case 2:
			return write(stderr)
		}
		return writeDescriptor(d.fd, write)
	case destInPlace:
		return writeInPlace(d.path, write)
	}
	if in := sameAsInput(d.named, inputs); in != "" {
		return fmt.Errorf("%s is %s, which this run reads; refusing to overwrite it", d.named, in)
	}
	return renameInto(d.path, 0o644, write)
}

// renameInto writes what write produces to a temporary file beside path,
// with mode perm, and renames it over path.
func renameInto(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return unwrapPath(err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return unwrapPath(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return unwrapPath(err)
	}
	return os.Rename(tmp.Name(), path)
}
