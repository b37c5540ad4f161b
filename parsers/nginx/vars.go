package nginx

import "strings"

// maxVarDepth bounds how many variables deep a value is followed ("set $a
// $b; set $b app;").
const maxVarDepth = 8

// resolveHost expands the variables of a *_pass URL that stand where its
// scheme, host and port are, through the static values "set" (in scope)
// and "map" (one value for every key) give them, and splits the result:
// "proxy_pass $u" with "set $u http://app:9000" is scheme "http" and
// "app:9000"; "proxy_pass http://$backend:8080$request_uri" with "set
// $backend app" is "app:8080$request_uri". What follows the host (the URI,
// and the variables in it) is kept as written. ok is false when a variable
// before the URI has no single static value: the host is then chosen at
// run time.
func (b *builder) resolveHost(sc *scope, url string) (scheme, rest string, ok bool) {
	expanded, ok := b.expandHost(sc, url, 0)
	if !ok {
		return "", "", false
	}
	rest = expanded
	if s, after, found := strings.Cut(expanded, "://"); found && !strings.Contains(s, "/") {
		scheme, rest = s, after
	}
	if strings.Contains(hostPart(rest), "$") {
		return "", "", false
	}
	return scheme, rest, true
}

// expandHost replaces the variables of s by their static values until its
// host part is complete: a URI variable, or a "/" after the host, ends it,
// and from there on s is kept as it is.
func (b *builder) expandHost(sc *scope, s string, depth int) (string, bool) {
	if depth > maxVarDepth {
		return "", false
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if hostDone(out.String()) {
			out.WriteString(s[i:])
			break
		}
		if s[i] != '$' {
			out.WriteByte(s[i])
			continue
		}
		name, end, ok := variableAt(s, i)
		if !ok {
			return "", false
		}
		if isURIVariable(s[i:end]) {
			out.WriteString(s[i:])
			break
		}
		v, ok := b.staticValue(sc, name, depth)
		if !ok {
			return "", false
		}
		out.WriteString(v)
		i = end - 1
	}
	return out.String(), true
}

// hostDone reports whether the expanded start of a URL already holds its
// whole host: a scheme, then a "/" after the host.
func hostDone(s string) bool {
	_, after, ok := strings.Cut(s, "://")
	return ok && !strings.HasPrefix(after, "unix:") && strings.Contains(after, "/")
}

// variableAt reads the variable at s[i] ("$name" or "${name}") and returns
// its name and the offset after it.
func variableAt(s string, i int) (string, int, bool) {
	j := i + 1
	braced := j < len(s) && s[j] == '{'
	if braced {
		j++
	}
	k := j
	for k < len(s) && (s[k] == '_' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9') {
		k++
	}
	name := s[j:k]
	if braced {
		if k >= len(s) || s[k] != '}' {
			return "", 0, false
		}
		k++
	}
	return name, k, name != ""
}

func isURIVariable(v string) bool {
	for _, u := range uriVariables {
		if v == u {
			return true
		}
	}
	return false
}

// staticValue is the one value variable name has in scope: from "set", or
// failing that from a "map" whose entries all give the same value.
func (b *builder) staticValue(sc *scope, name string, depth int) (string, bool) {
	if v, ok := setValue(sc, name); ok {
		return v, true
	}
	if setAnywhere(sc, name) {
		return "", false
	}
	m := b.maps["$"+name]
	if m == nil {
		return "", false
	}
	value, found := "", false
	hasDefault := false
	for _, e := range m.Block {
		switch {
		case e.Name == "include":
			return "", false
		case (e.Name == "hostnames" || e.Name == "volatile") && len(e.Args) == 0:
			continue
		case len(e.Args) != 1:
			return "", false
		}
		if e.Name == "default" {
			hasDefault = true
		}
		v := e.Args[0].Value
		if found && v != value {
			return "", false
		}
		value, found = v, true
	}
	if !found || !hasDefault {
		// Without a default, a key that matches nothing gives "".
		return "", false
	}
	if strings.Contains(value, "$") {
		return b.expandHost(sc, value, depth+1)
	}
	return value, true
}

// setAnywhere reports whether a "set" of the variable stands where the
// rewrite directives run for a request at sc, even when setValue could not
// take one value from it.
func setAnywhere(sc *scope, name string) bool {
	for _, c := range rewriteLevels(sc) {
		for _, d := range c.all("set") {
			if len(d.Args) >= 1 && d.Args[0].Value == "$"+name {
				return true
			}
		}
		for _, ifd := range c.children("if") {
			for _, d := range flatten(ifd.Block) {
				if d.Name == "set" && len(d.Args) >= 1 && d.Args[0].Value == "$"+name {
					return true
				}
			}
		}
	}
	return false
}
