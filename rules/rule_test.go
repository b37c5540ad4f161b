package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRuleList: every rule declared in this package is in the list, once,
// sorted by ID, with its documentation.
func TestRuleList(t *testing.T) {
	declared := declaredRules(t)
	listed := map[string]bool{}
	var ids []string
	for _, r := range all {
		if listed[r.ID] {
			t.Errorf("rule %s is listed twice", r.ID)
		}
		listed[r.ID] = true
		ids = append(ids, r.ID)
	}
	if !sort.StringsAreSorted(ids) {
		t.Errorf("the list in all.go is not sorted by ID: %v", ids)
	}
	if len(declared) != len(all) {
		t.Errorf("%d rules are declared (%v) but %d are listed in all.go", len(declared), declared, len(all))
	}
	for _, r := range all {
		if _, err := docs.ReadFile("docs/" + r.ID + ".md"); err != nil {
			t.Errorf("rule %s has no documentation: write rules/docs/%s.md", r.ID, r.ID)
			continue
		}
		if !strings.HasPrefix(r.Doc(), "# ") {
			t.Errorf("rules/docs/%s.md does not start with a title", r.ID)
		}
		if r.Summary == "" || r.Severity == 0 {
			t.Errorf("rule %s has no summary or severity", r.ID)
		}
	}
	entries, err := os.ReadDir("docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if id := strings.TrimSuffix(e.Name(), ".md"); !listed[id] {
			t.Errorf("rules/docs/%s documents no rule", e.Name())
		}
	}
}

// declaredRules lists the package-level variables initialised with &Rule{}.
func declaredRules(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if u, ok := v.(*ast.UnaryExpr); ok {
						if c, ok := u.X.(*ast.CompositeLit); ok {
							if id, ok := c.Type.(*ast.Ident); ok && id.Name == "Rule" {
								out = append(out, vs.Names[i].Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}
