package rules

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// dur formats a duration the way nginx and Envoy configurations write
// them: "60s", "500ms", "1h".
func dur(d time.Duration) string {
	if d == maxDur {
		return "more than 292 years"
	}
	return model.DurationText(d)
}

// shorter suggests a timeout a little below d.
func shorter(d time.Duration) time.Duration {
	switch {
	case d >= 20*time.Second:
		return d - 5*time.Second
	case d >= 2*time.Second:
		return d - time.Second
	}
	return d / 2
}

// maxDur is the longest Duration, where the sums below stop.
const maxDur = time.Duration(math.MaxInt64)

// addDur adds non-negative durations, stopping at maxDur instead of
// overflowing into a negative one.
func addDur(ds ...time.Duration) time.Duration {
	var total time.Duration
	for _, d := range ds {
		if d > maxDur-total {
			return maxDur
		}
		total += d
	}
	return total
}

// mulDur is n times the non-negative d, stopping at maxDur.
func mulDur(n int, d time.Duration) time.Duration {
	if n <= 0 || d <= 0 {
		return 0
	}
	if d > maxDur/time.Duration(n) {
		return maxDur
	}
	return time.Duration(n) * d
}

// setting describes where a value comes from, for messages: "proxy_read_timeout
// 60s (default)" or "proxy_read_timeout 30s".
func settingText[T any](s model.Setting[T], value string) string {
	if s.Default() {
		return s.Name() + " " + value + " (default)"
	}
	return s.Name() + " " + value
}

// upstreamName names an upstream for messages: `upstream "api"`,
// `cluster "api"`, or the address of an implicit one.
func upstreamName(u *model.Upstream) string {
	if u.Implicit {
		return u.Name
	}
	return fmt.Sprintf("%s %q", u.Kind, u.Name)
}

// durText describes a duration setting for a message: "proxy_read_timeout
// 60s (default)".
func durText(s model.Setting[time.Duration]) string {
	return settingText(s, dur(s.Value))
}

// routeName names a route for messages: "location /api/".
func routeName(r *model.Route) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Kind
}

// related points at a setting when it is written somewhere else than pos.
func relatedSetting[T any](s model.Setting[T], pos model.Pos, msg string) []Related {
	if !s.Pos().IsValid() || s.Pos() == pos {
		return nil
	}
	return []Related{{Pos: s.Pos(), Message: msg}}
}

// quoteList joins names as "a, b and c".
func quoteList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// allUnix reports whether every server of an upstream is a unix socket,
// which is connected to at once or not at all.
func allUnix(u *model.Upstream) bool {
	for _, s := range u.Servers {
		if s.Address.Unix == "" {
			return false
		}
	}
	return len(u.Servers) > 0
}
