package nginx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// ReleaseUse is a directive of a configuration that two nginx releases
// read differently: one accepts it and the other refuses it (the directive
// tables say which releases declare it, in which contexts, with which
// arguments and values), or the release table records a change for it
// (a deprecation, a new directive that would keep what the block loses).
type ReleaseUse struct {
	Pos model.Pos
	// Directive is the directive as it reads, with the parameter or value
	// in question: "ssl", "listen ... http2", "proxy_http_version 2".
	Directive string
	// Change is the release table's entry, nil when only the directive
	// tables know the difference.
	Change *releases.Change
	// Since is the release that added what older releases refuse, Until
	// the release that removed what newer ones refuse (from the directive
	// tables; zero when not the case).
	Since, Until model.Version
	// FromAccepts and ToAccepts say which of the two releases accept the
	// directive as written.
	FromAccepts, ToAccepts bool
	// What says what the difference is about, for a change of the
	// release table that touches a block rather than a directive.
	What string
}

// ReleaseUses lists the directives of the configuration that nginx
// releases from and to read differently, in the order nginx reads them.
// Angie's releases are not in nginx's directive tables: for an Angie side
// only the changes of the release table are looked for.
func (c *Config) ReleaseUses(from, to model.Target) []ReleaseUse {
	if c.Main == nil {
		return nil
	}
	w := &releaseWalker{from: from, to: to, fromRel: targetRelease(from), toRel: targetRelease(to), files: map[string]int{},
		tables: from.Product == model.Nginx && to.Product == model.Nginx}
	top := ctxAll
	if c.Context == "main" {
		top = ctxMain
	}
	w.block(c.Main.Directives, top, nil)
	sort.SliceStable(w.uses, func(i, j int) bool {
		a, b := w.uses[i].Pos, w.uses[j].Pos
		if a.File != b.File {
			return w.files[a.File] < w.files[b.File]
		}
		return a.Before(b)
	})
	return w.uses
}

// targetRelease is the release of the directive tables a target reads:
// its version, or the newest.
func targetRelease(t model.Target) release {
	if t.Version.IsZero() {
		return newestRelease
	}
	return releaseOf(t.Version.Major, t.Version.Minor, t.Version.Patch)
}

type releaseWalker struct {
	from, to       model.Target
	fromRel, toRel release
	tables         bool
	uses           []ReleaseUse
	// files numbers the files in the order the walk meets them.
	files map[string]int
}

// headerScope is what the walk knows of the add_header lines around a
// block: the nearest outer level that has any.
type headerScope struct {
	outer   *Directive // the first add_header of the nearest outer level with any
	inherit bool       // add_header_inherit is set at an outer level
}

func versionOf(r release) model.Version {
	return model.Version{Major: int(r / 1_000_000), Minor: int(r / 1_000 % 1_000), Patch: int(r % 1_000)}
}

// accepts reports whether release rel accepts d in one of the contexts
// ctxs: a declaration of nginx's own is in rel, allows the context, takes
// as many arguments, and knows the value of an enum.
func accepts(d *Directive, decls []directiveEntry, ctxs context, rel release) bool {
	for _, e := range decls {
		if (e.spec.since != 0 && rel < e.spec.since) || (e.spec.until != 0 && rel >= e.spec.until) {
			continue
		}
		if e.spec.contexts&(ctxs|ctxAny) == 0 || !argsFit(e.spec.args, len(d.Args)) {
			continue
		}
		if e.spec.kind == kindEnum || e.spec.kind == kindBitmask {
			if !wordsKnown(d, e, rel) {
				continue
			}
		}
		return true
	}
	return false
}

// wordsKnown reports whether release rel knows every value of d that e
// lists with the release that added it ("2@1.29.4"); values e does not
// list are the check's business.
func wordsKnown(d *Directive, e directiveEntry, rel release) bool {
	return wordSince(d, e) <= rel
}

// wordSince is the newest release that added a value of d, among those e
// lists with their release; 0 when none.
func wordSince(d *Directive, e directiveEntry) release {
	var newest release
	for _, w := range strings.Fields(e.spec.words) {
		name, since, ok := strings.Cut(w, "@")
		if !ok {
			continue
		}
		v, err := model.ParseVersion(since)
		if err != nil {
			continue
		}
		for _, a := range d.Args {
			if r := releaseOf(v.Major, v.Minor, v.Patch); strings.EqualFold(a.Value, name) && r > newest {
				newest = r
			}
		}
	}
	return newest
}

func (w *releaseWalker) block(dirs []*Directive, ctxs context, hs *headerScope) {
	var here headerScope
	if hs != nil {
		here = *hs
	}
	// add_header at this level, and whether it says how to inherit.
	var own *Directive
	inherit := false
	for _, d := range levelDirectives(dirs) {
		switch d.Name {
		case "add_header":
			if own == nil {
				own = d
			}
		case "add_header_inherit":
			inherit = true
		}
	}
	inherit = inherit || here.inherit
	here.inherit = inherit
	if own != nil && hs != nil && hs.outer != nil && !inherit && ctxs&(ctxHTTPServer|ctxHTTPLocation|ctxHTTPLocationIf|ctxHTTPServerIf) != 0 {
		w.tableUse(releases.AddHeaderInherit, own.Pos, "add_header", fmt.Sprintf(
			"this add_header drops those of the outer level (line %d)", hs.outer.Pos.Line))
	}
	if own != nil {
		here.outer = own
	}
	for _, d := range dirs {
		w.directive(d, ctxs, &here)
	}
}

// tableUse records a change of the release table at pos when the two
// releases differ on it.
func (w *releaseWalker) tableUse(c *releases.Change, pos model.Pos, directive, what string) {
	from, to := c.In(w.from), c.In(w.to)
	if from == to {
		return
	}
	w.uses = append(w.uses, ReleaseUse{Pos: pos, Directive: directive, Change: c, FromAccepts: true, ToAccepts: true, What: what})
}

// tableChange finds the release table's change about directive name.
func tableChange(name string, kind releases.Kind) *releases.Change {
	for _, c := range releases.Of(model.Nginx) {
		if c.Kind == kind && c.Named(name) {
			return c
		}
	}
	return nil
}

func (w *releaseWalker) directive(d *Directive, ctxs context, hs *headerScope) {
	if _, ok := w.files[d.Pos.File]; !ok {
		w.files[d.Pos.File] = len(w.files)
	}
	if d.Name == "listen" && ctxs&ctxHTTPServer != 0 {
		for _, a := range d.Args[min(1, len(d.Args)):] {
			if a.Value == "http2" {
				w.tableUse(releases.ListenHTTP2, d.PosOf(a), "listen ... http2", "")
			}
		}
	}
	for _, c := range releases.Of(model.Nginx) {
		if c.Kind == releases.Deprecated && c.Named(d.Name) {
			w.tableUse(c, d.Pos, d.Name, "")
		}
	}
	var decls []directiveEntry
	for _, e := range declarations(d.Name) {
		if e.spec.module == "" {
			decls = append(decls, e)
		}
	}
	if w.tables && len(decls) > 0 {
		fa, ta := accepts(d, decls, ctxs, w.fromRel), accepts(d, decls, ctxs, w.toRel)
		if fa != ta {
			u := ReleaseUse{Pos: d.Pos, Directive: d.Name, FromAccepts: fa, ToAccepts: ta}
			if len(d.Args) > 0 && d.Args[0].Value != "" && !strings.ContainsAny(d.Args[0].Value, " \t\n") && len(d.Args[0].Value) < 40 {
				u.Directive += " " + d.Args[0].Value
			}
			older, newer := w.fromRel, w.toRel
			accOld := fa
			if newer < older {
				older, newer, accOld = newer, older, ta
			}
			// The declaration, or the value, that changed between the
			// two releases.
			for _, e := range decls {
				switch {
				case !accOld && e.spec.since > older && e.spec.since <= newer:
					u.Since = versionOf(e.spec.since)
				case accOld && e.spec.until > older && e.spec.until <= newer:
					u.Until = versionOf(e.spec.until)
				}
				if since := wordSince(d, e); !accOld && since > older && since <= newer {
					u.Since = versionOf(since)
				}
			}
			kind := releases.Added
			if accOld {
				kind = releases.Removed
			}
			if c := tableChange(d.Name, kind); c != nil && c.In(w.from) != c.In(w.to) {
				u.Change = c
			}
			w.uses = append(w.uses, u)
		}
	}
	var child context
	if d.Block != nil {
		for _, b := range blockContexts {
			if b.name != d.Name {
				continue
			}
			for _, e := range decls {
				if e.spec.blockIn&ctxs&b.parent != 0 {
					child |= b.child
				}
			}
		}
	}
	for _, inc := range d.Included() {
		for _, id := range inc.Directives {
			w.directive(id, ctxs, hs)
		}
	}
	if d.Block == nil || child == 0 {
		return
	}
	// add_header is inherited http → server → location → if; an upstream,
	// map or events block has none.
	next := hs
	if child&(ctxHTTP|ctxHTTPServer|ctxHTTPLocation|ctxHTTPLocationIf|ctxHTTPServerIf|ctxHTTPLimitExcept) == 0 {
		next = nil
	}
	w.block(d.Block, child, next)
}

// levelDirectives are the directives of a block with those of the files
// it includes, at the same level.
func levelDirectives(dirs []*Directive) []*Directive {
	out := make([]*Directive, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, d)
		for _, inc := range d.Included() {
			out = append(out, levelDirectives(inc.Directives)...)
		}
	}
	return out
}
