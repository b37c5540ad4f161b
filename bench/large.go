package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/proxylint/proxylint/bench/gen"
)

// runLarge writes the large inputs (gen.Large) under a directory, one
// directory a case, for measuring proxylint with /usr/bin/time -v.
func runLarge(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("large: name the directory to write into")
	}
	dir, names := args[0], args[1:]
	if len(names) == 0 {
		for name := range gen.Large {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	for _, name := range names {
		c, ok := gen.Large[name]
		if !ok {
			return fmt.Errorf("large: no case %q", name)
		}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			return err
		}
		p := filepath.Join(dir, name, c.Name)
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := c.Write(f, c.N); err != nil {
			_ = f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\t%d bytes\n", p, fi.Size())
	}
	return nil
}
