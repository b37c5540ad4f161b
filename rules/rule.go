package rules

import (
	"embed"
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Rule is one check.
type Rule struct {
	// ID is the stable slug used in suppressions, configuration files and
	// SARIF ("retry-timeout-write").
	ID string
	// Aliases are other names for the rule, accepted wherever an ID is
	// (suppressions, --enable, --disable, the configuration file): the
	// names other linters give the same check (gixy's
	// "add_header_redefinition"), so that their suppressions keep working.
	// Findings always carry ID.
	Aliases []string
	// Summary is one line saying what the rule flags.
	Summary string
	// Severity is the default severity of its findings.
	Severity model.Severity
	// Tags group rules (in SARIF properties.tags and `proxylint rules`).
	Tags []string
	// Products are the proxies the rule applies to; the engine gives its
	// Check only their configurations (with the whole request path). Nil
	// means every proxy.
	Products []model.Product
	// Off rules run only when enabled explicitly.
	Off bool
	// Requires are the analyses the rule reads (Pass.ResultOf), which
	// the engine computes once per run for every rule that requires them.
	Requires []*Analysis
	// Check runs the rule. Rules without Check report problems found
	// while loading (syntax errors, unreadable includes).
	Check func(*Pass)
}

// AppliesTo reports whether the rule checks configurations of product p.
func (r *Rule) AppliesTo(p model.Product) bool {
	if r.Products == nil {
		return true
	}
	for _, x := range r.Products {
		if x == p {
			return true
		}
	}
	return false
}

// nginxFamily are the products that read nginx's configuration language.
var nginxFamily = []model.Product{model.Nginx, model.Angie}

// Doc is the rule's documentation in Markdown: why it matters with the
// evidence, a bad and a good example, how to fix it. It is the file
// docs/<ID>.md, read when asked for (a run that prints no documentation
// does not pay for copying it).
func (r *Rule) Doc() string { return doc(r.ID) }

// Title is the first line of the doc without its Markdown heading marks.
func (r *Rule) Title() string {
	line, _, _ := strings.Cut(r.Doc(), "\n")
	return strings.TrimSpace(strings.TrimLeft(line, "# "))
}

//go:embed docs/*.md
var docs embed.FS

// doc returns the documentation of rule id; a missing doc is a programming
// error caught by the tests, so it yields a placeholder rather than a panic.
func doc(id string) string {
	b, err := docs.ReadFile("docs/" + id + ".md")
	if err != nil {
		return fmt.Sprintf("# %s\n\n(no documentation)\n", id)
	}
	return string(b)
}

// All returns every rule, sorted by ID: the list in all.go.
func All() []*Rule { return append([]*Rule(nil), all...) }

// Lookup returns the rule with the given ID or alias.
func Lookup(id string) (*Rule, bool) {
	for _, r := range all {
		if r.Is(id) {
			return r, true
		}
	}
	return nil, false
}

// Is reports whether name is the rule's ID or one of its aliases.
func (r *Rule) Is(name string) bool {
	if r.ID == name {
		return true
	}
	for _, a := range r.Aliases {
		if a == name {
			return true
		}
	}
	return false
}

// Canonical returns the ID of the rule that id names (its ID or an
// alias), or id itself when it names none.
func Canonical(id string) string {
	if r, ok := Lookup(id); ok {
		return r.ID
	}
	return id
}
