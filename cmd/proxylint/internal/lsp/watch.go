package lsp

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The server lints open documents with the disk's copies of every other
// file they take in (an includer, an included fragment, the
// configuration file). Editors change those files without saying so: a
// fix across two files writes the one that is not open, a checkout
// replaces them, and many clients (Neovim before 0.9) never send
// workspace/didChangeWatchedFiles. So the server watches what its last
// lint read, by polling their metadata, and lints again when any of it
// changes.

// stamp is what the file system said of a path: a change to any part of
// it is a change to the file (or, for a directory, to its entries).
type stamp struct {
	exists bool
	mode   os.FileMode
	size   int64
	mtime  int64
}

func stampOf(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// maxWatched bounds the paths polled; beyond it, the files of the
// largest units are left out and changes to them are seen at the next
// edit.
const maxWatched = 10000

// stamps are the stamps of paths, taken now.
func stamps(paths []string) map[string]stamp {
	out := make(map[string]stamp, len(paths))
	for _, p := range paths {
		out[p] = stampOf(p)
	}
	return out
}

// watchedPaths are the paths whose changes change what the analyses say
// of the open documents: every file their runs read that is not open
// (the buffer, not the disk, is what counts of an open one), the
// directories holding them (a file added beside them, one renamed over
// them), the units' named paths and configuration files.
func watchedPaths(snap snapshot, analyses []*analysis) []string {
	open := map[string]bool{}
	for _, d := range snap.docs {
		open[d.real] = true
	}
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" || seen[p] || len(out) >= maxWatched {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, a := range analyses {
		for _, p := range a.unit.paths {
			if abs, err := filepath.Abs(p); err == nil && !open[realOrAbs(abs)] {
				add(realOrAbs(abs))
			}
		}
		if a.unit.config != "" {
			add(realOrAbs(a.unit.config))
		}
		for _, r := range a.runs {
			// In order, so that the same files are left out past
			// maxWatched at every lint.
			for _, real := range slices.Sorted(maps.Keys(r.files)) {
				add(filepath.Dir(real))
				if !open[real] {
					add(real)
				}
			}
		}
	}
	return out
}

// watch records what the lint of snap read, with the stamps taken before
// it read them (before), so that a change made while it was reading is
// seen at the next poll.
func (s *server) watch(snap snapshot, analyses []*analysis, before map[string]stamp) {
	paths := watchedPaths(snap, analyses)
	next := make(map[string]stamp, len(paths))
	for _, p := range paths {
		if st, ok := before[p]; ok {
			next[p] = st
		} else {
			next[p] = stampOf(p)
		}
	}
	s.mu.Lock()
	s.watched = next
	s.mu.Unlock()
}

// watchedNow are the stamps of the watched paths as they are now.
func (s *server) watchedNow() map[string]stamp {
	s.mu.Lock()
	paths := make([]string, 0, len(s.watched))
	for p := range s.watched {
		paths = append(paths, p)
	}
	s.mu.Unlock()
	return stamps(paths)
}

// diskChanged reports whether a watched path changed since the last lint.
func (s *server) diskChanged() bool {
	now := s.watchedNow()
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, st := range now {
		if old, ok := s.watched[p]; ok && old != st {
			return true
		}
	}
	return false
}

// pollInterval is how often the watched paths are polled by default.
const pollInterval = time.Second
