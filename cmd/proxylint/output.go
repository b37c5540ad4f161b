package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/model"
)

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
// file loaded (files), the configuration file and the baseline.
func inputs(paths []string, files []*model.File, s *settings) []string {
	out := append([]string{}, paths...)
	for _, f := range files {
		out = append(out, f.Path)
	}
	if s != nil {
		out = append(out, s.load.EntryPoints...)
		if s.baseline != "" {
			out = append(out, s.baseline)
		}
		out = append(out, s.configPaths...)
	}
	return out
}

// within reports whether the path p lies in the directory dir (both
// absolute and clean).
func within(p, dir string) bool {
	return p == dir || dir == string(filepath.Separator) || strings.HasPrefix(p, dir+string(filepath.Separator))
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
