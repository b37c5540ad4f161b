package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/proxylint/proxylint/model"
)

// writeFileAtomic writes what write produces to path through a temporary
// file in the same directory, renamed over path at the end: a reader (or a
// second run writing the same file) sees the old content or the new, never
// a mix. It refuses to replace any of inputs, the files the run read.
func writeFileAtomic(path string, inputs []string, write func(io.Writer) error) (err error) {
	if in := sameAsInput(path, inputs); in != "" {
		return fmt.Errorf("%s is %s, which this run reads; refusing to overwrite it", path, in)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// sameAsInput names the input that path is (the same file, whatever the
// links and spellings), or "".
func sameAsInput(path string, inputs []string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, in := range inputs {
		if gi, err := os.Stat(in); err == nil && os.SameFile(fi, gi) {
			if in == path {
				return "an input"
			}
			return "the input " + in
		}
	}
	return ""
}

// inputs are the files a run reads: the paths named, every configuration
// file loaded (m may be nil), the configuration file and the baseline.
func inputs(paths []string, m *model.Model, s *settings) []string {
	out := append([]string{}, paths...)
	if m != nil {
		for _, f := range m.Files {
			out = append(out, f.Path)
		}
	}
	if s != nil {
		out = append(out, s.load.EntryPoints...)
		if s.baseline != "" {
			out = append(out, s.baseline)
		}
		if s.configPath != "" {
			out = append(out, s.configPath)
		}
	}
	return out
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
