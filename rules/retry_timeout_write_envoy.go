package rules

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// envoyAfterSent are the retry_on conditions that can retry a request the
// upstream already received (semantics.md §B): 5xx, gateway-error and
// reset retry any reset, even after the whole request was sent, and a
// per-try timeout counts as one; the others retry on a response. Envoy
// checks no HTTP method before retrying. connect-failure, refused-stream
// and reset-before-request retry only what never reached the upstream.
var envoyAfterSent = []string{"5xx", "gateway-error", "reset", "retriable-4xx", "retriable-status-codes", "retriable-headers"}

// envoyTimeoutRetried are the conditions under which a per-try timeout is
// retried.
var envoyTimeoutRetried = map[string]bool{"5xx": true, "gateway-error": true, "reset": true}

// retryTimeoutWriteEnvoy is the Envoy half of retry-timeout-write; the
// rule's Check calls it for every Envoy proxy in the model.
func retryTimeoutWriteEnvoy(pass *Pass, p *model.Proxy) {
	for _, r := range p.Routes() {
		if f, ok := envoyRetriesWrites(r); ok {
			pass.Report(f)
		}
	}
}

// envoyRetriesWrites: a retry condition met after the request was sent, on
// a route that can carry POST or PATCH, with no retriable_request_headers
// narrowing retries to safe methods.
func envoyRetriesWrites(r *model.Route) (Finding, bool) {
	on := r.Retry.On
	if r.Pass == nil || !on.Explicit() || r.Retry.NumRetries.Value <= 0 {
		return Finding{}, false
	}
	var after []string
	timeouts := false
	for _, c := range envoyAfterSent {
		if r.Retry.Has(c) {
			after = append(after, c)
			timeouts = timeouts || envoyTimeoutRetried[c]
		}
	}
	if len(after) == 0 {
		return Finding{}, false
	}
	var carried []string
	for _, m := range []string{"POST", "PATCH"} {
		if r.Methods.Allows(m) && r.Retry.RetriableMethods.Allows(m) {
			carried = append(carried, m)
		}
	}
	if len(carried) == 0 {
		return Finding{}, false
	}
	msg := fmt.Sprintf("%s %s retries %s after the upstream may already have received it: "+
		"Envoy checks no idempotency, so a %s whose response was lost is sent again (a second order, a second charge).",
		on.Name, strings.Join(on.Value, ","), quoteList(carried), carried[0])
	if timeouts {
		msg += " A per-try timeout counts as a reset under " + quoteList(filter(after, envoyTimeoutRetried)) + ", so a slow response is replayed too."
	}
	why := "the route has no :method matcher, so it carries every method"
	if !r.Methods.Any {
		why = "its :method matcher lets " + quoteList(carried) + " through"
	}
	related := []Related{{Pos: r.Pos, Message: routeName(r) + ": " + why}}
	if r.Retry.NumRetries.Pos != on.Pos {
		related = append(related, Related{Pos: r.Retry.NumRetries.Pos, Message: settingText(r.Retry.NumRetries, fmt.Sprint(r.Retry.NumRetries.Value))})
	}
	return Finding{
		Pos:     on.Pos,
		Message: msg,
		Related: related,
		Fix: "retry only what never reached the upstream (retry_on: connect-failure,refused-stream,reset-before-request), " +
			"or limit retries to safe methods with retriable_request_headers: [{name: \":method\", string_match: {safe_regex: {regex: \"GET|HEAD|OPTIONS\"}}}]",
	}, true
}

// filter keeps the items in set.
func filter(items []string, set map[string]bool) []string {
	var out []string
	for _, it := range items {
		if set[it] {
			out = append(out, it)
		}
	}
	return out
}
