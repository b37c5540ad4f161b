package config

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/parsers/nginx"
)

var argsRE = lazyre.New(`^(\d+)(?:(\+)|-(\d+))?$`)

// directives reads the "directives" key: a list of directives of private
// nginx modules, each with its name, the contexts it is allowed in and its
// argument count ("1", "1-3", "2+"), so that the nginx check accepts them.
//
//	directives:
//	  - name: my_filter
//	    contexts: [http, server, location]
//	    args: 1-2
func (p *parser) directives(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return p.errorf(n, "directives must be a list of {name, contexts, args}")
	}
	known := map[string]bool{}
	for _, c := range nginx.CustomContextNames() {
		known[c] = true
	}
	for _, item := range n.Content {
		d := nginx.CustomDirective{MaxArgs: -1}
		err := p.pairs(item, "directives", func(k, v *yaml.Node) error {
			switch k.Value {
			case "name":
				s, err := p.str(k, v)
				d.Name = s
				return err
			case "contexts":
				cs, err := p.strs(k, v)
				if err != nil {
					return err
				}
				for i, c := range cs {
					if !known[c] {
						return p.errorf(v.Content[i], "directives: unknown context %q; the contexts are %s", c, strings.Join(nginx.CustomContextNames(), ", "))
					}
				}
				d.Contexts = cs
			case "args":
				s, err := p.str(k, v)
				if err != nil {
					return err
				}
				m := argsRE().FindStringSubmatch(s)
				if m == nil {
					return p.errorf(v, "directives: args %q must be a count (\"1\"), a range (\"1-3\") or a minimum (\"2+\")", s)
				}
				d.MinArgs, _ = strconv.Atoi(m[1])
				switch {
				case m[2] != "":
					d.MaxArgs = -1
				case m[3] != "":
					d.MaxArgs, _ = strconv.Atoi(m[3])
				default:
					d.MaxArgs = d.MinArgs
				}
				if d.MaxArgs >= 0 && d.MaxArgs < d.MinArgs {
					return p.errorf(v, "directives: args %q: the range is empty", s)
				}
			default:
				return p.errorf(k, "directives: unknown key %q; the keys are name, contexts, args", k.Value)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if d.Name == "" {
			return p.errorf(item, "directives: an entry has no name")
		}
		p.cfg.Directives = append(p.cfg.Directives, d)
	}
	return nil
}
