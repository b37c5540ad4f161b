package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

// setting is one effective value of the model, read from a model.Setting
// of any type.
type setting struct {
	// label says what a value derived from the directive is, where the
	// directive's name alone would mislead ("attempts per request" for
	// proxy_next_upstream's 1); "" when the name says it.
	label                    string
	name, value, level, note string
	pos                      model.Pos
	def                      bool
}

// labels are the model's fields whose value is not the directive's own
// but what follows from it.
var labels = map[string]string{
	"MaxAttempts":           "attempts per request",
	"Codec":                 "protocol served",
	"ConnectionHeader":      "Connection header sent upstream",
	"ConnectionHeaderPlain": "Connection header without Upgrade",
	"Stream":                "long-lived streams",
	"NamedFallback":         "continues in",
	"Unresolvable":          "host with no resolver",
}

// title is how a setting is named in a list: its directive, or what its
// value is and the directive it comes from.
func (s setting) title() string {
	if s.label != "" {
		return s.label + " `" + s.value + "` (" + s.name + ")"
	}
	return s.name + " `" + s.value + "`"
}

var posType = reflect.TypeOf(model.Pos{})

// isSetting reports whether t is a model.Setting[T].
func isSetting(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == posType.PkgPath() && strings.HasPrefix(t.Name(), "Setting[") && t.Implements(describedType)
}

// described is what every model.Setting[T] says of itself beside its value.
type described interface {
	Name() string
	Level() string
	Note() string
	Pos() model.Pos
	Default() bool
}

var describedType = reflect.TypeFor[described]()

// nested are the model's types whose settings belong to the value that
// holds them (a route's nginx knobs, its retry policy, its pool).
var nested = map[string]bool{"NginxRoute": true, "EnvoyRoute": true, "Retry": true, "Pool": true}

// settingsOf lists the valid settings of a listener, route or upstream,
// in the order of its fields.
func settingsOf(v any) []setting {
	var out []setting
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		for i := 0; i < v.NumField(); i++ {
			f, ft := v.Field(i), v.Type().Field(i)
			if !ft.IsExported() {
				continue
			}
			t := ft.Type
			if isSetting(t) {
				if s, ok := settingFrom(f); ok {
					s.label = labels[ft.Name]
					out = append(out, s)
				}
				continue
			}
			if t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Kind() == reflect.Struct && t.PkgPath() == posType.PkgPath() && nested[t.Name()] {
				walk(f)
			}
		}
	}
	walk(reflect.ValueOf(v))
	return out
}

func settingFrom(v reflect.Value) (setting, bool) {
	d := v.Interface().(described)
	s := setting{name: d.Name(), level: d.Level(), note: d.Note(), pos: d.Pos(), def: d.Default()}
	if s.name == "" {
		return s, false
	}
	s.value = valueText(v.FieldByName("Value"))
	return s, true
}

// valueText writes a value as configurations write it.
func valueText(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case time.Duration:
		return model.DurationText(x)
	case bool:
		if x {
			return "on"
		}
		return "off"
	case int:
		return strconv.Itoa(x)
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []string:
		if len(x) == 0 {
			return "(none)"
		}
		return strings.Join(x, " ")
	case []model.AccessLog:
		var parts []string
		for _, l := range x {
			if l.Off {
				parts = append(parts, "off")
				continue
			}
			parts = append(parts, strings.TrimSpace(l.Path+" "+l.Format.Name))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v.Interface())
}

// block is a listener, route or upstream: where it starts and ends (End
// is unknown for Envoy and manifests).
type block struct {
	name     string
	pos, end model.Pos
	target   model.Target
}

// holds reports whether the block's text holds p.
func (b block) holds(r *run, p model.Pos) bool {
	if !p.IsValid() || r.real(p.File) != r.real(b.pos.File) {
		return false
	}
	if b.end.IsValid() {
		return p.Line >= b.pos.Line && p.Line <= b.end.Line
	}
	return p.Line == b.pos.Line
}

// inheritedLevels are the levels of a proxy's own configuration, from
// which a block inherits what it does not set.
var inheritedLevels = map[string]bool{
	"http": true, "server": true, "location": true, "if": true, "limit_except": true, "upstream": true,
	"listener": true, "hcm": true, "virtual_host": true, "route": true, "cluster": true,
}

// origin says where a setting in effect in a block comes from.
func (r *run) origin(s setting, b block, line int32) string {
	switch {
	case s.def:
		o := "the default for " + b.target.String()
		if s.note != "" {
			o += " (" + strings.TrimSuffix(s.note, ".") + ")"
		}
		return o
	case b.holds(r, s.pos) || (s.pos.Line == line && r.real(s.pos.File) == r.real(b.pos.File)):
		if s.pos.Line == line {
			return "written here"
		}
		return fmt.Sprintf("written here, line %d", s.pos.Line)
	case inheritedLevels[s.level]:
		return "inherited from " + s.level + " at " + shownPos(s.pos)
	}
	return "set by the " + strings.ReplaceAll(s.level, "_", " ") + " at " + shownPos(s.pos)
}

// shownPos is file:line, the file relative to the working directory (the
// workspace's root) when it lies inside it.
func shownPos(p model.Pos) string {
	file := p.File
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
	}
	return file + ":" + strconv.Itoa(int(p.Line))
}

func (s *server) Hover(_ context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	a, d, snap := s.current(filePath(p.TextDocument.URI))
	if a == nil || a.byDoc[d.path] == nil {
		return nil, nil
	}
	r := a.byDoc[d.path]
	line := int32(p.Position.Line) + 1
	text := r.hoverText(d, line)
	if text == "" {
		return nil, nil
	}
	t := newText(d.text)
	rng := t.lineRange(model.Pos{File: d.path, Line: line, Col: 1}, snap.enc)
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: text}, Range: &rng}, nil
}

// hoverText says what the model knows of a line of the document: the
// settings written there and the routes they are in effect for; for the
// line that opens a listener, route or upstream, every value in effect in
// it and where it comes from; where a pass directive or a route's cluster
// forwards; and the findings on the line.
func (r *run) hoverText(d *document, line int32) string {
	at := func(p model.Pos) bool { return p.Line == line && p.File != "" && r.real(p.File) == d.real }
	var sections []string

	// The settings written on the line, with the blocks they are in
	// effect in.
	type written struct {
		s      setting
		owners []string
	}
	var here []*written
	note := func(s setting, owner string) {
		if s.def || !at(s.pos) {
			return
		}
		for _, w := range here {
			if w.s.name == s.name && w.s.value == s.value && w.s.pos == s.pos {
				w.owners = append(w.owners, owner)
				return
			}
		}
		here = append(here, &written{s: s, owners: []string{owner}})
	}
	for _, p := range r.res.Model.Proxies {
		for _, l := range p.Listeners {
			for _, s := range settingsOf(l) {
				note(s, l.Name)
			}
			for _, rt := range l.Routes {
				for _, s := range settingsOf(rt) {
					note(s, routeLabel(rt))
				}
			}
		}
		for _, u := range p.Upstreams {
			for _, s := range settingsOf(u) {
				note(s, upstreamLabel(u))
			}
		}
	}
	for _, w := range here {
		var b strings.Builder
		fmt.Fprintf(&b, "**%s**, written here", w.s.title())
		if w.s.level != "" {
			fmt.Fprintf(&b, " (%s level)", strings.ReplaceAll(w.s.level, "_", " "))
		}
		b.WriteString(": in effect for " + listOf(w.owners))
		sections = append(sections, b.String())
	}

	// The blocks that open on the line.
	for _, p := range r.res.Model.Proxies {
		for _, l := range p.Listeners {
			if at(l.Pos) {
				sections = append(sections, r.blockText("**"+l.Name+"**", block{name: l.Name, pos: l.Pos, target: p.Target}, settingsOf(l), line))
			}
			for _, rt := range l.Routes {
				if at(rt.Pos) {
					b := block{name: routeLabel(rt), pos: rt.Pos, end: rt.End, target: p.Target}
					sections = append(sections, r.blockText("**"+routeLabel(rt)+"** ("+l.Name+")", b, settingsOf(rt), line))
				}
				if f := rt.Forward; f != nil && at(f.Pos) && !f.Inherited {
					sections = append(sections, forwardText(rt))
				}
			}
		}
		for _, u := range p.Upstreams {
			if at(u.Pos) && !u.Implicit {
				b := block{name: upstreamLabel(u), pos: u.Pos, target: p.Target}
				text := r.blockText("**"+upstreamLabel(u)+"**", b, settingsOf(u), line)
				var used []string
				for _, rt := range u.Routes {
					used = append(used, routeLabel(rt))
				}
				if len(used) > 0 {
					text += "\n\nused by " + listOf(used)
				}
				sections = append(sections, text)
			}
		}
	}

	// The findings on the line.
	for _, f := range r.findingsIn(d) {
		if f.Pos.Line != line {
			continue
		}
		state := f.Severity.String()
		if f.Suppression != nil {
			state = "suppressed: " + f.Suppression.Reason
		}
		text := fmt.Sprintf("**%s** (%s): %s", f.Rule, state, f.Message)
		if f.Fix.Message != "" {
			text += "\n\nFix: " + f.Fix.Message
		}
		if _, ok := rules.Lookup(f.Rule); ok {
			text += "\n\n[" + f.Rule + "](" + report.RuleDocURI(f.Rule) + ")"
		}
		sections = append(sections, text)
	}
	return strings.Join(dedupe(sections), "\n\n---\n\n")
}

// blockText lists the values in effect in a block and where each comes
// from.
func (r *run) blockText(title string, b block, settings []setting, line int32) string {
	var lines []string
	seen := map[string]bool{}
	for _, s := range settings {
		key := s.name + "\x00" + s.value
		if seen[key] {
			continue
		}
		seen[key] = true
		lines = append(lines, "- "+s.title()+": "+r.origin(s, b, line))
	}
	if len(lines) == 0 {
		return title
	}
	return title + ", the values in effect:\n\n" + strings.Join(lines, "\n")
}

// forwardText says where a route's pass directive or cluster leads.
func forwardText(rt *model.Route) string {
	f := rt.Forward
	text := fmt.Sprintf("**%s** `%s` forwards %s", f.Name, f.URL, routeLabel(rt))
	switch u := f.Upstream; {
	case u == nil:
		text += " to an address known only at run time"
	case u.Implicit:
		text += " to " + u.Name
	default:
		text += " to " + upstreamLabel(u) + " (" + shownPos(u.Pos) + ")"
	}
	if rt.Pool == nil {
		text += "; every request opens a new connection"
	} else if rt.Pool.Size.Valid() {
		text += fmt.Sprintf("; pooled: %s `%s`", rt.Pool.Size.Name(), valueText(reflect.ValueOf(rt.Pool.Size.Value)))
	}
	return text
}

func routeLabel(rt *model.Route) string {
	if rt.Name != "" {
		return rt.Name
	}
	return rt.Kind
}

func upstreamLabel(u *model.Upstream) string {
	if u.Implicit {
		return u.Name
	}
	return u.Kind + " " + u.Name
}

// listOf names up to five things, and how many more.
func listOf(names []string) string {
	names = dedupe(names)
	sort.Strings(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

func dedupe(items []string) []string {
	seen := map[string]bool{}
	out := items[:0]
	for _, it := range items {
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out
}

func (s *server) Definition(_ context.Context, p *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	a, d, snap := s.current(filePath(p.TextDocument.URI))
	if a == nil || a.byDoc[d.path] == nil {
		return nil, nil
	}
	r := a.byDoc[d.path]
	line := int32(p.Position.Line) + 1
	var locs protocol.LocationSlice
	seen := map[model.Pos]bool{}
	for _, px := range r.res.Model.Proxies {
		for _, rt := range px.Routes() {
			f := rt.Forward
			if f == nil || f.Upstream == nil || f.Upstream.Implicit || !f.Upstream.Pos.IsValid() {
				continue
			}
			if f.Pos.Line != line || r.real(f.Pos.File) != d.real || seen[f.Upstream.Pos] {
				continue
			}
			seen[f.Upstream.Pos] = true
			locs = append(locs, s.locationOf(r, f.Upstream.Pos, snap))
		}
	}
	if len(locs) == 0 {
		return nil, nil
	}
	return locs, nil
}

// locationOf is a model position as a location of the client, under the
// URI of the open document when the file is one.
func (s *server) locationOf(r *run, p model.Pos, snap snapshot) protocol.Location {
	loc := r.location(p, snap.enc)
	real := r.real(p.File)
	for _, d := range snap.docs {
		if d.real == real {
			loc.URI = d.uri
		}
	}
	return loc
}
