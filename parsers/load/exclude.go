package load

import (
	"path/filepath"
)

// excludedNamed reports whether a file named on the command line is
// excluded: the file itself, or a directory on the path as it was named,
// matches a pattern. A pre-commit hook names changed files one by one, and
// "vendor" or "deploy/old/" must keep them out as they keep out what a
// directory walk finds.
func excludedNamed(p string, patterns []string) bool {
	if len(patterns) == 0 {
		return false
	}
	for q := filepath.Clean(p); ; {
		if excluded(q, patterns) {
			return true
		}
		parent := filepath.Dir(q)
		if parent == q || parent == "." || parent == string(filepath.Separator) {
			return false
		}
		q = parent
	}
}
