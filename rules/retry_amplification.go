package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
)

// RetryAmplification flags retries at several hops of one path, which
// multiply.
var RetryAmplification = &Rule{
	ID:       "retry-amplification",
	Summary:  "several hops retry the same request: executions at the backend and the worst-case time multiply",
	Severity: model.Warning,
	Tags:     []string{"nginx", "envoy", "retries", "chain"},
	Requires: []*Analysis{RequestPaths, Attempts},
	Check:    checkRetryAmplification,
}

func checkRetryAmplification(pass *Pass) {
	c := pass.Chain()
	var client *model.Hop
	for _, h := range c.Front() {
		if h.Kind == model.HopClient {
			client = h
		}
	}
	for _, p := range pass.Model.Proxies {
		for _, r := range p.Routes() {
			if r.Forward == nil || c.Reached(r.Listener) {
				continue
			}
			for _, path := range chain.Paths(c, r) {
				if f, ok := amplified(pass, path, client, c.Backend()); ok {
					pass.Report(f)
					break
				}
			}
		}
	}
}

// amplified computes, along one path of loaded hops, the executions of one
// request at the last hop's backend (the product of every hop's attempts)
// and the worst-case time the client waits: each hop's attempts times the
// shorter of its own timeout and the time the next hop can take.
func amplified(pass *Pass, path []*model.Route, client, backend *model.Hop) (Finding, bool) {
	var retrying []int
	tries := make([]int, len(path))
	for i, r := range path {
		tries[i] = pass.attempts(r).tries
		if tries[i] > 1 {
			retrying = append(retrying, i)
		}
	}
	if len(retrying) < 2 {
		return Finding{}, false
	}
	executions := 1
	var factors []string
	for _, i := range retrying {
		executions *= tries[i]
		factors = append(factors, fmt.Sprintf("%d at %s", tries[i], whereRoute(path[i])))
	}
	var worst time.Duration
	known := true
	for i := len(path) - 1; i >= 0; i-- {
		inner := time.Duration(-1)
		if i < len(path)-1 {
			inner = worst
		}
		t, ok := hopTime(path[i], tries[i], inner)
		if !ok {
			known = false
			break
		}
		worst = t
	}
	outer := path[retrying[0]]
	on := outer.Retry.On
	msg := fmt.Sprintf("%d hops retry the same request: %s = up to %d executions of one request at the backend",
		len(retrying), strings.Join(factors, " × "), executions)
	if known {
		msg += fmt.Sprintf(", and up to %s before the client is answered", dur(worst))
		if client != nil && client.RequestTimeout.Valid() && client.RequestTimeout.Value > 0 && worst > client.RequestTimeout.Value {
			msg += fmt.Sprintf(", against a client that waits %s", dur(client.RequestTimeout.Value))
		}
	}
	if backend != nil && backend.CancelsOnDisconnect.Valid() && !backend.CancelsOnDisconnect.Value {
		msg += fmt.Sprintf("; %s does not stop the attempts a proxy gave up on, so each of them runs to the end", backend.Name)
	}
	var related []Related
	for _, i := range retrying[1:] {
		s := path[i].Retry.On
		related = append(related, Related{Pos: s.Pos(), Message: fmt.Sprintf("%s retries too (%d attempts)", whereRoute(path[i]), tries[i])})
	}
	return Finding{
		Pos:     on.Pos(),
		Message: msg + ".",
		Related: related,
		Fix:     Advice("retry at one hop only, the one closest to the backend, and make the others pass failures on (proxy_next_upstream off, or no retry_policy)"),
	}, true
}
