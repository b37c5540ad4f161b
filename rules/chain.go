package rules

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/proxylint/proxylint/model"
)

// Helpers of the rules about adjacent hops; the values they compare come
// from package chain (Wait, Attempts, Pool, Paths).

// hopName names a listener for messages about another hop: "server
// 127.0.0.1:8081 in inner.conf".
func hopName(l *model.Listener, from *model.Proxy) string {
	name := l.Name
	if name == "" || name == "server" {
		name = "the server"
		if len(l.Addresses) > 0 {
			name = "the server on " + l.Addresses[0].String()
		}
	}
	if l.Proxy != nil && l.Proxy != from {
		file := l.Proxy.Entry
		if len(l.Proxy.Sources) > 1 && l.Pos.File != "" {
			// A proxy joined from several files: the listener's own.
			file = l.Pos.File
		}
		name += " in " + filepath.Base(file)
	}
	return name
}

// declaredName describes a declared hop: "aws-alb (--behind aws-alb)".
func declaredName(h *model.Hop, s model.Setting[time.Duration]) string {
	who := h.Name
	if h.Kind == model.HopClient {
		who = "the client"
	}
	if s.Name() != "" {
		who += " (" + s.Name() + ")"
	}
	return who
}

// whereRoute names a route with its file: "location /api/ (edge.conf)".
func whereRoute(r *model.Route) string {
	return fmt.Sprintf("%s (%s)", routeName(r), filepath.Base(r.Pos.File))
}
