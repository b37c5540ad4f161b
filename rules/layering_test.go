package rules_test

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The layers of the program, from the bottom: data flows files →
// loaders → model → rules → findings → report, and no package reaches up.
// Each rule names a layer by the import paths it holds (a path or its
// prefix with a trailing slash) and what it may never depend on, directly
// or through another package.
var layers = []struct {
	name    string
	holds   []string
	forbids []string
}{
	{"model", []string{"model"}, []string{"parsers/", "chain", "rules", "report", "lint", "cmd/"}},
	{"the loaders", []string{"parsers/"}, []string{"chain", "rules", "report", "lint", "cmd/"}},
	{"the request paths", []string{"chain"}, []string{"parsers/", "rules", "report", "lint", "cmd/"}},
	{"the rules", []string{"rules"}, []string{"parsers/", "report", "lint", "cmd/"}},
	{"the reports", []string{"report"}, []string{"parsers/", "lint", "cmd/"}},
	{"the shared helpers", []string{"internal/"}, []string{"model", "parsers/", "chain", "rules", "report", "lint", "cmd/"}},
}

const module = "github.com/proxylint/proxylint/"

// matches reports whether the module-relative path p is named by one of
// the patterns: "x" is the package x and its subpackages, "x/" only what
// is below x.
func matches(p string, patterns []string) bool {
	for _, pat := range patterns {
		if strings.HasSuffix(pat, "/") && strings.HasPrefix(p, pat) || p == pat || strings.HasPrefix(p, pat+"/") {
			return true
		}
	}
	return false
}

// TestLayering holds every package of the module to its layer: what go
// list -deps says a package depends on (tests aside) is never above it.
func TestLayering(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps=false", "-json=ImportPath,Deps", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := map[string]bool{}
	for {
		var pkg struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&pkg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p := strings.TrimPrefix(pkg.ImportPath, module)
		for _, l := range layers {
			if !matches(p, l.holds) {
				continue
			}
			seen[l.name] = true
			for _, d := range pkg.Deps {
				if !strings.HasPrefix(d, module) {
					continue
				}
				if dep := strings.TrimPrefix(d, module); matches(dep, l.forbids) && !matches(dep, l.holds) {
					t.Errorf("%s (%s) depends on %s, which %s never may", p, l.name, dep, l.name)
				}
			}
		}
	}
	for _, l := range layers {
		if !seen[l.name] {
			t.Errorf("no package of %s (%v): the layers name packages that no longer exist", l.name, l.holds)
		}
	}
}
