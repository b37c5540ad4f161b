package playground

import "github.com/proxylint/proxylint/rules"

// Rule is one of proxylint's rules, with its documentation.
type Rule struct {
	ID       string `json:"id"`
	Summary  string `json:"summary"`
	Severity string `json:"severity"`
	// Products are the proxies the rule applies to; none means every one.
	Products []string `json:"products,omitempty"`
	// Off rules run only when enabled.
	Off bool `json:"off,omitempty"`
	// Doc is the rule's documentation in Markdown (rules.Rule.Doc).
	Doc string `json:"doc"`
}

// Rules returns every rule, sorted by ID.
func Rules() []Rule {
	var out []Rule
	for _, r := range rules.All() {
		x := Rule{ID: r.ID, Summary: r.Summary, Severity: r.Severity.String(), Off: r.Off, Doc: r.Doc()}
		for _, p := range r.Products {
			x.Products = append(x.Products, string(p))
		}
		out = append(out, x)
	}
	return out
}
