package envoy

import (
	"regexp"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// FirstMatch is Envoy's route selection: the first route in order whose
// match takes the path.
func FirstMatch(l *model.Listener, path string, known bool) *model.Route {
	for _, r := range l.Routes {
		switch r.Match.Kind {
		case model.MatchPrefix:
			if r.Match.Path == "/" || r.Match.Path == "" {
				return r
			}
			if known && strings.HasPrefix(path, r.Match.Path) {
				return r
			}
		case model.MatchExact:
			if known && path == r.Match.Path {
				return r
			}
		}
		if !known {
			return nil
		}
		if r.Match.Kind == model.MatchRegex {
			re, err := regexp.Compile("^(?:" + r.Match.Path + ")$")
			if err != nil {
				return nil
			}
			if re.MatchString(path) {
				return r
			}
		}
	}
	return nil
}
