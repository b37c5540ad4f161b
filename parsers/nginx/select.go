package nginx

import (
	"regexp"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// SelectLocation is nginx's choice of the location that takes a request
// for path (ngx_http_core_find_location). When the path is not known, the
// server's only top-level location is chosen, if it has one.
func SelectLocation(l *model.Listener, path string, known bool) *model.Route {
	if !known {
		top := locationsIn(l, nil)
		if len(top) == 1 {
			return namedFallback(l, top[0])
		}
		return nil
	}
	r, ok := findLocation(l, nil, path)
	if !ok {
		return nil
	}
	return namedFallback(l, r)
}

// namedFallback follows try_files to the named location a request that the
// chosen location does not proxy continues in: the named location's
// settings are the ones that apply (ngx_http_core_try_files_phase →
// ngx_http_named_location; docs/semantics.md §0b).
func namedFallback(l *model.Listener, r *model.Route) *model.Route {
	if r == nil || r.Forward != nil || r.Nginx == nil || !r.Nginx.NamedFallback.Valid() {
		return r
	}
	for _, n := range l.Routes {
		if n.Match.Kind == model.MatchNamed && n.Match.Path == r.Nginx.NamedFallback.Value {
			return n
		}
	}
	return r
}

// locationsIn lists the locations of l directly inside parent (nil: the
// server's own).
func locationsIn(l *model.Listener, parent *model.Route) []*model.Route {
	var out []*model.Route
	for _, r := range l.Routes {
		if r.Parent == parent && r.Kind == "location" && r.Match.Kind != model.MatchNamed {
			out = append(out, r)
		}
	}
	return out
}

// findLocation is nginx's location search at one level
// (ngx_http_core_find_location): an exact match, else the longest prefix
// and, within it, its nested locations, then the first regular expression
// that matches unless that prefix is "^~". ok is false when the result
// cannot be known (a regular expression Go cannot read).
func findLocation(l *model.Listener, parent *model.Route, path string) (*model.Route, bool) {
	level := locationsIn(l, parent)
	var best *model.Route
	for _, in := range level {
		switch in.Match.Kind {
		case model.MatchExact:
			if in.Match.Path == path {
				return in, true
			}
		case model.MatchPrefix:
			if strings.HasPrefix(path, in.Match.Path) && (best == nil || len(in.Match.Path) > len(best.Match.Path)) {
				best = in
			}
		}
	}
	if best != nil {
		nested, ok := findLocation(l, best, path)
		if !ok {
			return nil, false
		}
		if nested != nil {
			return nested, true
		}
	}
	if best == nil || !best.Match.NoRegex {
		for _, in := range level {
			if in.Match.Kind != model.MatchRegex {
				continue
			}
			expr := in.Match.Path
			if !in.Match.CaseSensitive {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, false
			}
			if re.MatchString(path) {
				return in, true
			}
		}
	}
	return best, true
}
