package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/model"
)

// EnvoyRetryOnUnknown flags retry_on tokens Envoy does not know. Envoy
// drops them without a word, so the retry the author wanted never happens.
var EnvoyRetryOnUnknown = &Rule{
	ID:       "envoy-retry-on-unknown",
	Summary:  "a retry_on token Envoy does not know: Envoy drops it silently, so that retry never happens",
	Severity: model.Warning,
	Tags:     []string{"envoy", "retries", "correctness"},
	Products: []model.Product{model.Envoy},
	Check:    checkEnvoyRetryOnUnknown,
}

func checkEnvoyRetryOnUnknown(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, r := range p.Routes() {
			for _, u := range r.Retry.Unknown {
				pass.Report(retryOnUnknown(p, u))
			}
		}
	}
}

// retryOnUnknown words the finding for a condition the loader found the
// target does not know (the tokens and the releases that added them live
// in parsers/envoy).
func retryOnUnknown(p *model.Proxy, u model.UnknownCondition) Finding {
	f := Finding{Pos: u.Pos()}
	if !u.Since.IsZero() {
		// Known, but newer than the release the configuration targets.
		f.Message = fmt.Sprintf("retry_on token %q exists only since Envoy %s, and this configuration targets %s: "+
			"that release drops it without a word%s", u.Value, u.Since, p.Target, retriesLeft(u.Kept))
		f.Fix = Advice(fmt.Sprintf("upgrade to Envoy %s or newer, or retry on connect-failure,refused-stream instead", u.Since))
		return f
	}
	f.Message = fmt.Sprintf("retry_on token %q is not one Envoy knows: Envoy drops it without a word%s", u.Value, retriesLeft(u.Kept))
	known := append([]string(nil), u.Known...)
	sort.Strings(known)
	fix := ""
	if s := nearestToken(u.Value, known); s != "" {
		fix = fmt.Sprintf("did you mean %q? ", s)
	}
	f.Fix = Advice(fix + "Envoy knows " + strings.Join(known, ", "))
	return f
}

// retriesLeft ends the message with what the policy still retries on:
// another token may cover what the dropped one meant (reset covers
// reset-before-request), so the message names them instead of claiming a
// retry is lost.
func retriesLeft(kept []string) string {
	if len(kept) == 0 {
		return ". No other token is left, so this policy retries nothing."
	}
	return ", and the policy retries only on " + strings.Join(kept, ",") + "."
}

// nearestToken returns the known token closest to tok when it is close
// enough to be a typo (or a different spelling: 5XX, gateway_error).
func nearestToken(tok string, known []string) string {
	norm := strings.ReplaceAll(strings.ToLower(tok), "_", "-")
	for _, k := range known {
		if k == norm {
			return norm
		}
	}
	return suggest.Nearest(norm, known, 2)
}
