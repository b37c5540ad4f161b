package rules

import (
	"strconv"
	"time"

	"github.com/proxylint/proxylint/parsers"
)

// proxiedRoutes calls fn for every route of every proxy that passes
// requests to an upstream.
func proxiedRoutes(m *parsers.Model, fn func(*parsers.Proxy, *parsers.Route)) {
	for _, p := range m.Proxies {
		for _, r := range p.Routes() {
			if r.Pass != nil {
				fn(p, r)
			}
		}
	}
}

// dur formats a duration the way nginx and Envoy configurations write
// them: "60s", "500ms", "1h".
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0 && d >= 2*time.Hour:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	default:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
}

// setting describes where a value comes from, for messages: "proxy_read_timeout
// 60s (default)" or "proxy_read_timeout 30s".
func settingText[T any](s parsers.Setting[T], value string) string {
	if s.Default {
		return s.Name + " " + value + " (default)"
	}
	return s.Name + " " + value
}
