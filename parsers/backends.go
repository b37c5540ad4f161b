package parsers

import (
	"sort"
	"time"
)

// backend describes a backend server's documented defaults (docs/presets.md
// cites each value).
type backend struct {
	name    string
	doc     string
	idle    time.Duration // idle keep-alive timeout toward its clients (the proxy)
	cancels bool          // whether it stops the handler when the client goes away
}

var backendPresets = []backend{}

func backendPreset(name string) (backend, bool) {
	for _, b := range backendPresets {
		if b.name == name {
			return b, true
		}
	}
	return backend{}, false
}

// BackendPresets lists the names --backend accepts.
func BackendPresets() []string {
	out := make([]string, len(backendPresets))
	for i, b := range backendPresets {
		out[i] = b.name
	}
	sort.Strings(out)
	return out
}
