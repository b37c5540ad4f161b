package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// fixFiles takes the fixes of the findings that can be applied together
// and returns, for each file they change, the file as read and as fixed.
func fixFiles(mdl *model.Model, findings []rules.Finding) (map[string][2][]byte, rules.FixSet, error) {
	set := rules.SelectFixes(findings)
	out := map[string][2][]byte{}
	for path, edits := range set.Edits {
		var f *model.File
		for _, mf := range mdl.Files {
			if mf.Path == path {
				f = mf
			}
		}
		if f == nil {
			return nil, set, fmt.Errorf("%s: a fix edits a file this run did not read", path)
		}
		fixed, err := rules.ApplyEdits(f.Source, edits)
		if err != nil {
			return nil, set, err
		}
		out[path] = [2][]byte{f.Source, fixed}
	}
	return out, set, nil
}

// writeDiff prints a unified diff of every fix.
func writeDiff(w io.Writer, files map[string][2][]byte) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		name := filepath.ToSlash(p)
		fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", name, name)
		if _, err := io.WriteString(w, unifiedHunks(files[p][0], files[p][1])); err != nil {
			return err
		}
	}
	return nil
}

// unifiedHunks diffs two texts that differ in a few places, line by line,
// with three lines of context: the common lines at both ends are cut
// from each changed region.
func unifiedHunks(a, b []byte) string {
	al, bl := splitLines(a), splitLines(b)
	// The longest common subsequence on these small line counts.
	n, m := len(al), len(bl)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			ops = append(ops, op{' ', al[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', al[i]})
			i++
		default:
			ops = append(ops, op{'+', bl[j]})
			j++
		}
	}
	const ctx = 3
	var out strings.Builder
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		oldStart, newStart := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				oldStart++
			}
			if o.kind != '-' {
				newStart++
			}
		}
		oldN, newN := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				oldN++
			}
			if o.kind != '-' {
				newN++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		k = end
	}
	return out.String()
}

func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// applyFixes writes the fixed files in place, each through a temporary
// file renamed over it. A fix may change several files (an upstream block
// in one, the proxy_pass in another), so when any file is outside the
// linted tree, or changed since it was read, none is written: a fix is
// applied whole or not at all.
func applyFixes(files map[string][2][]byte, paths []string, stderr io.Writer) (written int, ok bool) {
	ok = true
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if !insideTree(p, paths) {
			fmt.Fprintf(stderr, "proxylint: --fix: %s is outside the linted paths; no file changed\n", p)
			ok = false
			continue
		}
		now, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(now, files[p][0]) {
			fmt.Fprintf(stderr, "proxylint: --fix: %s changed since it was read; no file changed\n", p)
			ok = false
		}
	}
	if !ok {
		return 0, false
	}
	for _, p := range names {
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(p); err == nil {
			mode = fi.Mode().Perm()
		}
		fixed := files[p][1]
		if err := writeFileAtomic(p, nil, func(w io.Writer) error { _, err := w.Write(fixed); return err }); err != nil {
			fmt.Fprintf(stderr, "proxylint: --fix: %s: %v\n", p, err)
			ok = false
			continue
		}
		_ = os.Chmod(p, mode)
		written++
	}
	return written, ok
}

// insideTree reports whether path is one of the named paths or inside a
// named directory, links resolved.
func insideTree(path string, named []string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	real, _ = filepath.Abs(real)
	for _, n := range named {
		root, err := filepath.EvalSymlinks(n)
		if err != nil {
			continue
		}
		root, _ = filepath.Abs(root)
		if real == root || strings.HasPrefix(real, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
