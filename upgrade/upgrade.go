// Package upgrade says what changes for a configuration between two
// releases of the proxies it is for: the behaviour that changes under it
// (a default of the newer release, a directive it refuses or adds), from
// the release table (package releases), each change where it touches the
// configuration; and the findings that appear and disappear, the same
// configuration linted for both releases and compared by rule, position
// and meaning.
package upgrade

import (
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
	"github.com/proxylint/proxylint/releases"
	"github.com/proxylint/proxylint/rules"
)

// Pair is the release run now and the one the upgrade goes to, for one
// product family (nginx and Angie are one).
type Pair struct{ From, To model.Target }

// Side is one of the two runs: the configuration linted for one release.
type Side struct {
	Model    *model.Model
	Findings []rules.Finding
}

// Input is what Compare compares.
type Input struct {
	Pairs    []Pair
	From, To Side
	// Directives are the nginx directives the two releases read
	// differently, by the entry file of the configuration
	// (nginx.Config.ReleaseUses for the pair of its family).
	Directives map[string][]nginx.ReleaseUse
}

// Change is one place where the behaviour of the configuration changes.
type Change struct {
	// Change is the release table's entry; nil for a directive whose
	// acceptance only the directive tables know (Subject says which).
	Change  *releases.Change
	Kind    releases.Kind
	Subject string
	// Product and Since name the release that made the change.
	Product model.Product
	Since   model.Version
	// Removed is set when the upgrade goes back across the change (the
	// newer release is the one run now): Before and After are then the
	// change's, swapped.
	Removed bool
	Pos     model.Pos
	// What says what of the configuration the change touches, and Note
	// what the change does there beyond its After (a setting of the
	// place that defeats it).
	What, Note    string
	Before, After string
	// Keep is what keeps today's behaviour after the upgrade, and
	// Instead what to write in place of what the newer release refuses
	// or deprecates, when there is such a thing.
	Keep, Instead string
	Source        string
	// Related are the other places involved (the upstream block a
	// location proxies to).
	Related []rules.Related
	Pair    Pair
}

// Report is what changes.
type Report struct {
	Pairs   []Pair
	Changes []Change
	// Appear and Disappear are the findings that only the run for the
	// release upgraded to, or only the run for the release run now,
	// gives, with what the report knows of each.
	Appear, Disappear []Finding
	// NotCompared are the files one of the runs could not lint (a release
	// refuses them, or neither reads them): their other findings are not
	// compared.
	NotCompared []NotCompared
}

// Finding is a finding that appears or disappears.
type Finding struct {
	rules.Finding
	// With names the changes at the finding's places (its position or
	// a related one): the changes that make it come or go.
	With []string
	// Replaces, for a finding that appears, is a finding of the same rule
	// that disappears at one of its places (or the other way round): the
	// same problem, told where the newer release has it.
	Replaces *rules.Finding
}

// NotCompared is a file whose findings were not compared, and why.
type NotCompared struct {
	File string
	// Refused names the targets whose run could not lint it.
	Refused []model.Target
}

// Empty reports whether nothing changes.
func (r *Report) Empty() bool {
	return len(r.Changes) == 0 && len(r.Appear) == 0 && len(r.Disappear) == 0
}

// Compare works out what changes.
func Compare(in Input) *Report {
	r := &Report{Pairs: in.Pairs}
	order := fileOrder(in.From.Model, in.To.Model)
	for _, pp := range pairProxies(in.From.Model, in.To.Model) {
		one := pp.from
		if one == nil {
			one = pp.to
		}
		pair, ok := pairFor(in.Pairs, one.Product)
		if !ok {
			continue
		}
		// A release that refuses the configuration runs none of it: what
		// changes is what it refuses, which the directives say.
		refused := pp.from == nil || pp.to == nil
		if pp.from == nil {
			pp.from = &model.Proxy{Product: pair.From.Product, Target: pair.From, Entry: one.Entry}
		}
		if pp.to == nil {
			pp.to = &model.Proxy{Product: pair.To.Product, Target: pair.To, Entry: one.Entry}
		}
		r.Changes = append(r.Changes, changes(pair, pp, refused, in.Directives[one.Entry], in.From.Model)...)
	}
	sort.SliceStable(r.Changes, func(i, j int) bool {
		a, b := r.Changes[i], r.Changes[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return before(order, a.Pos, b.Pos)
	})
	compareFindings(r, in, order)
	return r
}

// rank orders changes as the table does; those only the directive tables
// know come last.
func rank(c Change) int {
	for i, t := range releases.All() {
		if t == c.Change {
			return i
		}
	}
	return len(releases.All())
}

// fileOrder numbers the files of the runs in the order they were read.
func fileOrder(ms ...*model.Model) map[string]int {
	order := map[string]int{}
	for _, m := range ms {
		for _, f := range m.Files {
			if _, ok := order[f.Path]; !ok {
				order[f.Path] = len(order)
			}
		}
	}
	return order
}

func before(order map[string]int, a, b model.Pos) bool {
	if a.File != b.File {
		oa, okA := order[a.File]
		ob, okB := order[b.File]
		if okA && okB {
			return oa < ob
		}
		return a.File < b.File
	}
	return a.Before(b)
}

// family is the product family a pair is for.
func family(p model.Product) model.Product {
	if p == model.Angie {
		return model.Nginx
	}
	return p
}

func pairFor(pairs []Pair, p model.Product) (Pair, bool) {
	for _, pr := range pairs {
		if family(pr.From.Product) == family(p) {
			return pr, true
		}
	}
	return Pair{}, false
}

// proxyPair is a configuration as the two runs read it; one of them is
// nil when that run could not read it (the release refuses it).
type proxyPair struct{ from, to *model.Proxy }

// pairProxies pairs the proxies of the two runs by their entry file and
// product family, in the order of the first run.
func pairProxies(from, to *model.Model) []proxyPair {
	type key struct {
		entry string
		fam   model.Product
		n     int
	}
	keys := func(m *model.Model) map[key]*model.Proxy {
		out := map[key]*model.Proxy{}
		seen := map[key]int{}
		for _, p := range m.Proxies {
			k := key{p.Entry, family(p.Product), 0}
			k.n = seen[k]
			seen[key{p.Entry, family(p.Product), 0}]++
			out[k] = p
		}
		return out
	}
	tos := keys(to)
	var out []proxyPair
	seen := map[key]int{}
	paired := map[*model.Proxy]bool{}
	for _, p := range from.Proxies {
		k := key{p.Entry, family(p.Product), 0}
		k.n = seen[k]
		seen[key{p.Entry, family(p.Product), 0}]++
		t := tos[k]
		paired[t] = true
		out = append(out, proxyPair{p, t})
	}
	for _, p := range to.Proxies {
		if !paired[p] {
			out = append(out, proxyPair{nil, p})
		}
	}
	return out
}

// changes lists where the release table's changes between the pair's
// releases touch one configuration, and the directives only the directive
// tables tell apart.
func changes(pair Pair, pp proxyPair, refused bool, uses []nginx.ReleaseUse, m *model.Model) []Change {
	var out []Change
	for _, c := range releases.All() {
		if refused && !byDirectives(c) {
			continue
		}
		has, will := c.In(pp.from.Target), c.In(pp.to.Target)
		if has == will {
			continue
		}
		rel, ok := c.For(pp.to.Product)
		if !will {
			rel, ok = c.For(pp.from.Product)
		}
		if !ok {
			continue
		}
		s := &scene{change: c, from: pp.from, to: pp.to, gained: will, uses: uses, files: m.Files}
		s.without, s.with = pp.from, pp.to
		if !will {
			s.without, s.with = pp.to, pp.from
		}
		// Told as the upgrade goes: back across the change, what the
		// change brought is what goes. A bug's After is its fix, which
		// comes when the releases with the bug are left.
		forward := will
		if c.Kind == releases.Bug {
			forward = !will
		}
		was, becomes, keep := c.Before, c.After, c.Keep
		if !forward {
			was, becomes, keep = c.After, c.Before, c.Adopt
		}
		for _, t := range matcherOf(c)(s) {
			ch := Change{
				Change: c, Kind: c.Kind, Subject: c.Subject, Product: rel.Product, Since: rel.Since,
				Removed: !forward, Pos: t.pos, What: t.what, Note: t.note, Before: was, After: becomes,
				Keep: keep, Source: rel.Source, Related: t.related, Pair: pair,
			}
			if (c.Kind == releases.Removed || c.Kind == releases.Deprecated) && forward {
				ch.Instead = c.Adopt
			}
			if c.Kind == releases.Bug && !forward {
				ch.Keep = ""
			}
			out = append(out, ch)
		}
	}
	for _, u := range uses {
		if u.Change != nil {
			continue
		}
		out = append(out, tablesOnly(pair, u))
	}
	return out
}

// tablesOnly is a directive whose acceptance differs between the pair's
// releases, which the directive tables know and the release table does
// not record.
func tablesOnly(pair Pair, u nginx.ReleaseUse) Change {
	accepted := func(ok bool) string {
		if ok {
			return "accepted"
		}
		return "refused: nginx -t fails"
	}
	ch := Change{
		Subject: u.Directive, Product: model.Nginx, Pos: u.Pos, Pair: pair,
		What:   u.Directive,
		Before: accepted(u.FromAccepts), After: accepted(u.ToAccepts),
		Source: "nginx's directive tables, read from nginx's source at every release (parsers/nginx/directives_gen.go)",
	}
	switch {
	case !u.Since.IsZero():
		ch.Kind, ch.Since = releases.Added, u.Since
		ch.Source = "nginx " + releases.Full(u.Since) + " declares it (" + ch.Source + ")"
	case !u.Until.IsZero():
		ch.Kind, ch.Since = releases.Removed, u.Until
		ch.Source = "nginx " + releases.Full(u.Until) + " no longer declares it (" + ch.Source + ")"
	default:
		ch.Kind = releases.Removed
		if u.ToAccepts {
			ch.Kind = releases.Added
		}
	}
	// Told as an upgrade: Removed says the newer release is the one run
	// now.
	ch.Removed = pair.To.Version.Less(pair.From.Version) && !pair.To.Version.IsZero()
	return ch
}

// Because names the table's changes whose places are those of finding f:
// its position, or one of its related positions, is where a change
// touches the configuration.
func because(f rules.Finding, cs []Change) []string {
	at := map[model.Pos]bool{f.Pos: true}
	for _, r := range f.Related {
		at[r.Pos] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		id := c.Subject
		if c.Change != nil {
			id = c.Change.ID
		}
		hit := at[c.Pos]
		for _, r := range c.Related {
			hit = hit || at[r.Pos]
		}
		if hit && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// meaning is what a finding says, with the names of the two runs'
// targets taken out: a finding that only names its target differently is
// the same finding.
func meaning(f rules.Finding, names []string) string {
	msg := f.Message
	for _, n := range names {
		msg = strings.ReplaceAll(msg, n, "\x00")
	}
	return f.Rule + "\x01" + f.Pos.String() + "\x01" + msg
}

// targetNames are the ways messages name the pairs' targets, longest
// first: "nginx:1.28", "nginx 1.18 or newer", "Envoy Gateway 1.1.2" as
// "1.1.2" after a space.
func targetNames(pairs []Pair) []string {
	var names []string
	for _, p := range pairs {
		for _, t := range []model.Target{p.From, p.To} {
			names = append(names, t.String())
			if !t.Version.IsZero() {
				names = append(names, " "+t.Version.String()+" ", " "+t.Version.String()+")", " "+t.Version.String()+",", " "+t.Version.String()+":")
			}
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	return names
}

// compareFindings fills in the findings that appear and disappear. A file
// that one run could not lint (a fatal finding) is not compared beyond
// its fatal findings: its other findings would all seem to come or go.
func compareFindings(r *Report, in Input, order map[string]int) {
	names := targetNames(in.Pairs)
	fatalIn := func(fs []rules.Finding) map[string]bool {
		out := map[string]bool{}
		for _, f := range fs {
			if f.Fatal {
				out[f.Pos.File] = true
			}
		}
		return out
	}
	fromFatal, toFatal := fatalIn(in.From.Findings), fatalIn(in.To.Findings)
	skip := map[string]bool{}
	var files []string
	for f := range fromFatal {
		files = append(files, f)
	}
	for f := range toFatal {
		if !fromFatal[f] {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return before(order, model.Pos{File: files[i]}, model.Pos{File: files[j]}) })
	for _, f := range files {
		skip[f] = true
		nc := NotCompared{File: f}
		for _, p := range in.Pairs {
			if fromFatal[f] {
				nc.Refused = append(nc.Refused, p.From)
			}
			if toFatal[f] {
				nc.Refused = append(nc.Refused, p.To)
			}
		}
		r.NotCompared = append(r.NotCompared, nc)
	}
	count := func(fs []rules.Finding) map[string]int {
		out := map[string]int{}
		for _, f := range fs {
			if f.Suppression == nil {
				out[meaning(f, names)]++
			}
		}
		return out
	}
	diff := func(a, b []rules.Finding) []rules.Finding {
		left := count(b)
		var out []rules.Finding
		for _, f := range a {
			if f.Suppression != nil || (skip[f.Pos.File] && !f.Fatal) {
				continue
			}
			k := meaning(f, names)
			if left[k] > 0 {
				left[k]--
				continue
			}
			out = append(out, f)
		}
		return out
	}
	appear, disappear := diff(in.To.Findings, in.From.Findings), diff(in.From.Findings, in.To.Findings)
	for _, f := range appear {
		r.Appear = append(r.Appear, Finding{Finding: f, With: because(f, r.Changes)})
	}
	for _, f := range disappear {
		r.Disappear = append(r.Disappear, Finding{Finding: f, With: because(f, r.Changes)})
	}
	pairReplaced(r.Appear, r.Disappear)
}

// places are a finding's position and its related positions.
func places(f rules.Finding) map[model.Pos]bool {
	out := map[model.Pos]bool{f.Pos: true}
	for _, r := range f.Related {
		out[r.Pos] = true
	}
	return out
}

// pairReplaced marks the findings that appear in place of one that
// disappears: the same rule, and the position of one among the places of
// the other. Each finding replaces one other at most.
func pairReplaced(appear, disappear []Finding) {
	taken := make([]bool, len(disappear))
	for i := range appear {
		a := &appear[i]
		pa := places(a.Finding)
		for j := range disappear {
			d := &disappear[j]
			if taken[j] || d.Rule != a.Rule || !pa[d.Pos] && !places(d.Finding)[a.Pos] {
				continue
			}
			taken[j] = true
			a.Replaces, d.Replaces = &d.Finding, &a.Finding
			break
		}
	}
}
