package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/proxylint/proxylint/parsers/load"
)

// limits are the flags that bound what a run reads and analyses, and
// --verbose, which lists what directory walks leave out.
type limits struct {
	verbose      bool
	maxFileSize  string
	maxTotalSize string
	maxIncludes  int
	maxPaths     int
}

func (l *limits) register(fs *flag.FlagSet) {
	fs.BoolVar(&l.verbose, "verbose", false, "")
	fs.StringVar(&l.maxFileSize, "max-file-size", "", "")
	fs.StringVar(&l.maxTotalSize, "max-total-size", "", "")
	fs.IntVar(&l.maxIncludes, "max-includes", 0, "")
	fs.IntVar(&l.maxPaths, "max-paths", 0, "")
}

func (l *limits) check() error {
	for _, v := range []struct{ name, val string }{{"--max-file-size", l.maxFileSize}, {"--max-total-size", l.maxTotalSize}} {
		if v.val == "" {
			continue
		}
		if _, err := parseSize(v.val); err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
	}
	if n, _ := parseSize(l.maxFileSize); n > maxFileSize {
		// Positions count lines and columns in 32 bits.
		return fmt.Errorf("--max-file-size: %s is more than proxylint reads of one file (2G less one byte)", l.maxFileSize)
	}
	if l.maxIncludes < 0 {
		return fmt.Errorf("--max-includes: %d is negative", l.maxIncludes)
	}
	if l.maxPaths < 0 {
		return fmt.Errorf("--max-paths: %d is negative", l.maxPaths)
	}
	return nil
}

// apply sets the limits given on the command line (check has accepted
// them); the rest keep their defaults. The path bound is read by analyze.
func (l *limits) apply(o *load.Options) {
	if l.maxFileSize != "" {
		o.MaxFileSize, _ = parseSize(l.maxFileSize)
	}
	if l.maxTotalSize != "" {
		o.MaxTotalSize, _ = parseSize(l.maxTotalSize)
	}
	o.MaxIncludes = l.maxIncludes
}

// fileLimit is the most one file may hold: --max-file-size, or its
// default. It bounds every input alike: configurations, standard input,
// dumps, baselines and the configuration file.
func (l *limits) fileLimit() int64 {
	if l.maxFileSize != "" {
		if n, err := parseSize(l.maxFileSize); err == nil {
			return n
		}
	}
	return load.DefaultMaxFileSize
}

// maxFileSize is the largest --max-file-size: a file smaller has fewer
// lines and columns than a position can count (model.Pos).
const maxFileSize = 1<<31 - 1

// parseSize reads a byte count: a number, optionally followed by K, M or G
// (powers of 1024, with or without "iB" or "B").
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	u := strings.ToUpper(t)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			t, mult = strings.TrimSpace(t[:len(t)-len(suf.s)]), suf.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 1048576, 512K, 64M, 1G)", s)
	}
	return n * mult, nil
}
