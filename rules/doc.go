// Package rules holds proxylint's rule engine and every rule. A rule is a
// value, like a go/analysis Analyzer: an ID, a summary, a severity, a doc
// and a Check function that reads the model (package model) and reports
// findings. Rules know the model and nothing about syntax: what a proxy
// does with its settings is computed by the loader that read them, and
// what a fix writes is written by the loader's editor.
//
// # A new rule
//
// A rule with its fix is one file, its fixtures and its doc. The file,
// rules/RULE.go, declares the rule and holds its Check and its fix:
//
//	var UpstreamDNSStale = &Rule{
//		ID:       "upstream-dns-stale",
//		Summary:  "...",
//		Severity: model.Warning,
//		Tags:     []string{"nginx", "dns"},
//		Products: nginxFamily, // only nginx and Angie configurations
//		Check:    checkUpstreamDNSStale,
//	}
//
//	func checkUpstreamDNSStale(pass *Pass) {
//		for _, p := range pass.Model.Proxies {
//			...
//			pass.Report(Finding{Pos: pos, Message: "...", Fix: resolveFix(pass, u).Or("advice")})
//		}
//	}
//
// Besides it:
//
//   - one line in rules/all.go;
//   - rules/docs/RULE.md: why it matters, an example, the fix, a section
//     "## What --fix does" saying which of its fixes are safe, unsafe or
//     display-only and why, the Proof and "On real configurations";
//   - fixtures/RULE/ with "# want RULE "regexp"" comments on the lines
//     that must be reported, and a file where the rule stays silent;
//     FILE.fixed beside each fixture its fixes change, and the rule's
//     findings in testdata/findings/RULE.txt, both written by
//     "go test ./rules -run 'TestFixtures|TestFindingsGolden' -update"
//     and reviewed in the diff;
//   - a proof in rules/proof/ for what it claims about nginx.
//
// A check of one proxy language ranges over that language's routes
// (nginxRoutes, envoyRoutes in routes.go) rather than asking each route
// which part it has.
//
// # Fixes
//
// A finding's Fix is a message and, where the repair is mechanical, the
// edits that make it (Fix{Message, Edits, Applicability}), built in the
// rule's own file:
//
//   - Advice(msg): display-only, for a person to carry out;
//   - SafeFix(msg, edits): --fix applies it;
//   - UnsafeFix(msg, edits): --fix applies it only with --unsafe-fixes.
//
// SafeFix and UnsafeFix without edits are no fix, and fix.Or(advice)
// falls back to advice: a fix is made whole or not at all. The edits come
// from the editor of the file they change (model.ConfEditor for nginx,
// model.TreeEditor for YAML and JSON), reached through a fixer
// (newFixer(pass)), which fails the whole fix when a step cannot be
// made; fixer.go holds what the fixes of several rules share. No fix
// edits a generated file (model.File.Generated: an Envoy admin config
// dump): writtenElsewhere gives the advice that names where the setting
// is written.
package rules
