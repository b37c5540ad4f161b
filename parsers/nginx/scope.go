package nginx

import (
	"github.com/proxylint/proxylint/model"
)

// scope is one level of nginx's configuration hierarchy (http, server,
// location, if, limit_except, upstream) with its own directives, includes
// expanded in place.
type scope struct {
	kind   string     // "main", "http", "server", "location", "if", "limit_except", "upstream", ...
	dir    *Directive // the block directive; nil for main and implied blocks
	at     model.Pos
	parent *scope
	dirs   []*Directive
	// byName indexes dirs by name; built on first use.
	byName map[string][]*Directive
	// many is what all last gathered of a small scope's directives of
	// one name written more than once (proxy_set_header, add_header), for
	// the next of the several lookups a route makes of it.
	many struct {
		name string
		dirs []*Directive
	}
}

// newScope makes the scope of block directive dir (nil for the top level
// of a file, or for a block a fragment implies; at is then its position).
func newScope(kind string, dir *Directive, at model.Pos, parent *scope, body []*Directive) *scope {
	if dir != nil {
		at = dir.Pos
	}
	return &scope{kind: kind, dir: dir, at: at, parent: parent, dirs: flatten(body)}
}

// flatten replaces include directives by the directives of the files they
// include, recursively, as nginx reads them.
func flatten(dirs []*Directive) []*Directive {
	hasInclude := false
	for _, d := range dirs {
		if d.Name == "include" {
			hasInclude = true
			break
		}
	}
	if !hasInclude {
		return dirs
	}
	out := make([]*Directive, 0, len(dirs))
	for _, d := range dirs {
		if d.Name != "include" {
			out = append(out, d)
			continue
		}
		for _, f := range d.Included() {
			out = append(out, flatten(f.Directives)...)
		}
	}
	return out
}

// smallScope is the number of directives up to which a scope is searched
// directive by directive rather than through an index: most locations hold
// a few, and are asked for a few dozen settings.
const smallScope = 32

// all returns the directives named name at this level, in order. The
// result may share the scope's memory: callers must not change it.
func (s *scope) all(name string) []*Directive {
	if s.byName == nil && len(s.dirs) <= smallScope {
		if s.many.dirs != nil && s.many.name == name {
			return s.many.dirs
		}
		var out []*Directive
		for i, d := range s.dirs {
			switch {
			case d.Name != name:
			case out == nil:
				// Capacity clipped: appending copies.
				out = s.dirs[i : i+1 : i+1]
			default:
				out = append(out, d)
			}
		}
		if len(out) > 1 {
			s.many.name, s.many.dirs = name, out[:len(out):len(out)]
		}
		return out
	}
	s.index()
	return s.byName[name]
}

// index builds byName, once.
func (s *scope) index() {
	if s.byName != nil {
		return
	}
	// Indexed, the scope is no longer searched directive by directive;
	// the directives it held may be let go (release). (A scope the forks
	// share is indexed before they start: this is written once.)
	s.many.name, s.many.dirs = "", nil
	s.byName = make(map[string][]*Directive)
	for _, d := range s.dirs {
		s.byName[d.Name] = append(s.byName[d.Name], d)
	}
}

// last returns the last directive named name at this level, or nil. nginx
// refuses most duplicates; where it does not, the last one wins.
func (s *scope) last(name string) *Directive {
	if s.byName == nil && len(s.dirs) <= smallScope {
		for i := len(s.dirs) - 1; i >= 0; i-- {
			if s.dirs[i].Name == name {
				return s.dirs[i]
			}
		}
		return nil
	}
	ds := s.all(name)
	if len(ds) == 0 {
		return nil
	}
	return ds[len(ds)-1]
}

// lookup finds the innermost level that sets name, as nginx's merge of
// scalar and bitmask values does: a child's value replaces its parent's
// whole.
func (s *scope) lookup(name string) (*Directive, *scope) {
	for c := s; c != nil; c = c.parent {
		if d := c.last(name); d != nil {
			return d, c
		}
	}
	return nil, nil
}

// lookupArray finds the innermost level with any directive named name and
// returns all of them: proxy_set_header, access_log and add_header are
// inherited only by levels that have none of their own.
func (s *scope) lookupArray(name string) ([]*Directive, *scope) {
	for c := s; c != nil; c = c.parent {
		if ds := c.all(name); len(ds) > 0 {
			return ds, c
		}
	}
	return nil, nil
}

// children returns the sub-blocks named name.
func (s *scope) children(name string) []*Directive {
	var out []*Directive
	for _, d := range s.all(name) {
		if d.Block != nil {
			out = append(out, d)
		}
	}
	return out
}

// release lets go of what the scope holds of the directives of its files
// beyond its own settings: the included files' trees, already flattened
// into the scope, and its server and upstream blocks, which the caller
// holds while it builds them. What the scope's settings say stays.
func (s *scope) release() {
	s.index()
	delete(s.byName, "server")
	delete(s.byName, "upstream")
	s.dirs = nil
	var drop func(dirs []*Directive)
	drop = func(dirs []*Directive) {
		for _, d := range dirs {
			if d.Name != "include" {
				continue
			}
			for _, f := range d.Included() {
				drop(f.Directives)
				f.Directives = nil
			}
		}
	}
	if s.dir != nil {
		drop(s.dir.Block)
	}
}
