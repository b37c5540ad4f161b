package rules

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// RetryTimeoutWrite flags retries that can replay a request that changes
// state after the first server may already have run it.
var RetryTimeoutWrite = &Rule{
	ID:       "retry-timeout-write",
	Summary:  "a request that may write is retried after it may already have run",
	Severity: model.Error,
	Tags:     []string{"nginx", "envoy", "retries", "correctness"},
	Check:    checkRetryTimeoutWrite,
}

// retryModules have *_next_upstream and can carry request bodies.
var retryModules = map[string]bool{"proxy": true, "grpc": true, "fastcgi": true, "uwsgi": true, "scgi": true}

// nonIdempotent are the methods nginx refuses to retry once the request was
// sent, unless non_idempotent is set (ngx_http_upstream.c).
var nonIdempotent = []string{"POST", "PATCH", "LOCK"}

// writeMethods change state on the server.
var writeMethods = map[string]bool{
	"POST": true, "PUT": true, "PATCH": true, "DELETE": true, "LOCK": true, "UNLOCK": true,
	"MKCOL": true, "COPY": true, "MOVE": true, "PROPPATCH": true,
}

func checkRetryTimeoutWrite(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		if p.Product == model.Envoy {
			retryTimeoutWriteEnvoy(pass, p)
			continue
		}
		for _, r := range p.Routes() {
			if r.Pass == nil || !retryModules[r.Pass.Module] || r.Pass.Upstream == nil {
				continue
			}
			if n, _ := peers(r.Pass.Upstream); n < 2 || r.Retry.Tries.Value == 1 || len(r.Retry.On.Value) == 0 {
				// A single-server upstream never retries (semantics.md §C).
				continue
			}
			if f, ok := replaysNonIdempotent(r); ok {
				pass.Report(f)
			} else if f, ok := writeRetriedOnTimeout(pass, r); ok {
				pass.Report(f)
			}
		}
	}
}

// afterSentConditions are next_upstream conditions met after the backend
// received the request.
func afterSent(r *model.Route) []string {
	var out []string
	for _, c := range r.Retry.On.Value {
		switch {
		case c == "timeout", c == "invalid_header", c == "http_429", strings.HasPrefix(c, "http_5"):
			out = append(out, c)
		}
	}
	return out
}

// replaysNonIdempotent: non_idempotent with a condition met after the
// request was sent, on a location that can carry POST, PATCH or LOCK.
func replaysNonIdempotent(r *model.Route) (Finding, bool) {
	conds := afterSent(r)
	if !r.Retry.Has("non_idempotent") || len(conds) == 0 {
		return Finding{}, false
	}
	var carried []string
	for _, m := range nonIdempotent {
		if r.Methods.Allows(m) {
			carried = append(carried, m)
		}
	}
	if len(carried) == 0 {
		return Finding{}, false
	}
	u := r.Pass.Upstream
	n, _ := peers(u)
	on := r.Retry.On
	return Finding{
		Pos: on.Pos,
		Message: fmt.Sprintf("%s %s replays %s requests: after %s the request may already have run, and nginx sends it again to the next server of %s (%d servers), so one order or payment can be executed twice.",
			on.Name, strings.Join(on.Value, " "), quoteList(carried), quoteList(conds), upstreamName(u), n),
		Related: routeRelated(r, on.Pos),
		Fix: fmt.Sprintf("remove non_idempotent from %s (nginx then retries a %s only when it was never sent), "+
			"or make the backend deduplicate with an idempotency key", on.Name, carried[0]),
	}, true
}

// writeRetriedOnTimeout: a location that writes, whose retries include
// timeout. nginx retries PUT, DELETE and any method but POST, PATCH and LOCK
// after a timeout even without non_idempotent, and decides by the client's
// method, not the one proxy_method sends.
func writeRetriedOnTimeout(pass *Pass, r *model.Route) (Finding, bool) {
	if !r.Retry.Has("timeout") {
		return Finding{}, false
	}
	why := writeReason(pass, r)
	if why == "" {
		return Finding{}, false
	}
	var replayed string
	switch um := r.UpstreamMethod; {
	case um.Valid() && (um.Value == "POST" || um.Value == "PATCH") && canCarryRetried(r):
		replayed = fmt.Sprintf("%s %s sends every request upstream as %s, but nginx decides on retries by the client's method, so a GET that timed out is sent as a second %s", um.Name, um.Value, um.Value, um.Value)
	case r.Methods.Any:
		replayed = "a PUT or DELETE that timed out after the backend received it is sent again"
	default:
		var ms []string
		for _, m := range r.Methods.Allowed {
			if !isNonIdempotent(m) && writeMethods[m] {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return Finding{}, false
		}
		replayed = fmt.Sprintf("a %s that timed out after the backend received it is sent again", strings.Join(ms, " or "))
	}
	on := r.Retry.On
	u := r.Pass.Upstream
	n, _ := peers(u)
	f := Finding{
		Severity: model.Warning,
		Pos:      on.Pos,
		Message: fmt.Sprintf("%s %s, and %s retries on timeout: %s to the next server of %s (%d servers).",
			routeName(r), why, settingText(on, strings.Join(on.Value, " ")), replayed, upstreamName(u), n),
		Related: routeRelated(r, on.Pos),
		Fix:     fmt.Sprintf("retry only failures before the request was sent in this location: %s error; (or off)", on.Name),
	}
	return f, true
}

func isNonIdempotent(m string) bool {
	for _, n := range nonIdempotent {
		if m == n {
			return true
		}
	}
	return false
}

// canCarryRetried reports whether a client method nginx retries after a
// timeout can reach the route.
func canCarryRetried(r *model.Route) bool {
	if r.Methods.Any {
		return true
	}
	for _, m := range r.Methods.Allowed {
		if !isNonIdempotent(m) {
			return true
		}
	}
	return false
}

// writeReason says why a route is taken to change state, or "".
func writeReason(pass *Pass, r *model.Route) string {
	for _, a := range r.Annotations {
		if a.Name == "write" {
			return "is marked # proxylint:write"
		}
	}
	if um := r.UpstreamMethod; um.Valid() && (um.Value == "POST" || um.Value == "PATCH") {
		return "sends " + um.Value + " upstream (" + um.Name + ")"
	}
	if !r.Methods.Any && len(r.Methods.Allowed) > 0 {
		only := true
		for _, m := range r.Methods.Allowed {
			if !writeMethods[m] {
				only = false
			}
		}
		if only {
			return "allows only " + quoteList(r.Methods.Allowed) + " (" + r.Methods.Source + ")"
		}
	}
	if p := r.Match.Path; p != "" {
		for _, re := range pass.WritePaths() {
			if re.MatchString(p) {
				return "looks like it writes (its path matches the write-path patterns)"
			}
		}
	}
	return ""
}

func upstreamName(u *model.Upstream) string {
	switch {
	case u.Implicit:
		return u.Name
	case u.Proxy != nil && u.Proxy.Product == model.Envoy:
		return fmt.Sprintf("cluster %q", u.Name)
	}
	return fmt.Sprintf("upstream %q", u.Name)
}

// routeRelated points at the route when the finding is elsewhere.
func routeRelated(r *model.Route, pos model.Pos) []Related {
	if r.Pos == pos {
		return nil
	}
	return []Related{{Pos: r.Pos, Message: "in effect for " + routeName(r)}}
}
