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
	Check:    checkEnvoyRetryOnUnknown,
}

// envoyRetryOn are the tokens Envoy knows, with the release that added the
// newest (source/common/http/headers.h, EnvoyRetryOnValues and
// EnvoyGrpcRetryOnValues; semantics.md §B).
var envoyRetryOn = map[string]model.Version{
	"5xx": {}, "gateway-error": {}, "connect-failure": {}, "envoy-ratelimited": {}, "retriable-4xx": {},
	"refused-stream": {}, "retriable-status-codes": {}, "retriable-headers": {}, "reset": {},
	"reset-before-request":       {Major: 1, Minor: 31},
	"http3-post-connect-failure": {},
	"cancelled":                  {}, "deadline-exceeded": {}, "internal": {}, "resource-exhausted": {}, "unavailable": {},
}

func checkEnvoyRetryOnUnknown(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		if p.Product != model.Envoy {
			continue
		}
		for _, r := range p.Routes() {
			for _, u := range r.Retry.Unknown {
				pass.Report(retryOnUnknown(p, r, u))
			}
		}
	}
}

func retryOnUnknown(p *model.Proxy, r *model.Route, u model.Setting[string]) Finding {
	f := Finding{Pos: u.Pos}
	if since, ok := envoyRetryOn[u.Value]; ok {
		// Known, but newer than the release the configuration targets.
		f.Message = fmt.Sprintf("retry_on token %q exists only since Envoy %s, and this configuration targets %s: "+
			"that release drops it without a word, so requests are never retried on it.", u.Value, since, p.Target)
		f.Fix = fmt.Sprintf("upgrade to Envoy %s or newer, or retry on connect-failure,refused-stream instead", since)
		return f
	}
	left := 0
	for _, tok := range r.Retry.On.Value {
		if _, ok := envoyRetryOn[tok]; ok {
			left++
		}
	}
	f.Message = fmt.Sprintf("retry_on token %q is not one Envoy knows: Envoy drops it without a word, so requests are never retried on it.", u.Value)
	if left == 0 {
		f.Message += " No other token is left, so this policy retries nothing."
	}
	if s := nearestToken(u.Value); s != "" {
		f.Fix = fmt.Sprintf("did you mean %q? ", s)
	}
	f.Fix += "Envoy knows " + strings.Join(sortedTokens(), ", ")
	return f
}

func sortedTokens() []string {
	out := make([]string, 0, len(envoyRetryOn))
	for k := range envoyRetryOn {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nearestToken returns the known token closest to tok when it is close
// enough to be a typo (or a different spelling: 5XX, gateway_error).
func nearestToken(tok string) string {
	norm := strings.ReplaceAll(strings.ToLower(tok), "_", "-")
	if _, ok := envoyRetryOn[norm]; ok {
		return norm
	}
	return suggest.Nearest(norm, sortedTokens(), 2)
}
