package envoy

import (
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// retryOnTokens are the retry_on values Envoy knows, with the change that
// added each one when it is recent (EnvoyRetryOnValues and
// EnvoyGrpcRetryOnValues in source/common/http/headers.h; router
// retry_state_impl.cc). Envoy drops any other token without a word.
var retryOnTokens = map[string]*releases.Change{
	"5xx":                        nil,
	"gateway-error":              nil,
	"connect-failure":            nil,
	"envoy-ratelimited":          nil,
	"retriable-4xx":              nil,
	"refused-stream":             nil,
	"retriable-status-codes":     nil,
	"retriable-headers":          nil,
	"reset":                      nil,
	"reset-before-request":       releases.ResetBeforeRequest,
	"http3-post-connect-failure": nil,
	// gRPC status conditions, accepted in the same field.
	"cancelled":          nil,
	"deadline-exceeded":  nil,
	"internal":           nil,
	"resource-exhausted": nil,
	"unavailable":        nil,
}

// KnownRetryOn reports whether Envoy release t understands retry_on token
// tok.
func KnownRetryOn(tok string, t model.Target) bool {
	added, ok := retryOnTokens[tok]
	if !ok {
		return false
	}
	return added == nil || added.In(t)
}

// retryOnSince is the release that added token tok, zero when every
// release knows it (or none does).
func retryOnSince(tok string) model.Version {
	if added := retryOnTokens[tok]; added != nil {
		return added.Since(model.Envoy)
	}
	return model.Version{}
}

// RetryOnTokens lists the tokens Envoy knows, for suggestions.
func RetryOnTokens() []string {
	out := make([]string, 0, len(retryOnTokens))
	for k := range retryOnTokens {
		out = append(out, k)
	}
	return out
}

// retryToken is one comma-separated token of a retry_on value and where
// it starts.
type retryToken struct {
	text string
	line int
	col  int
}

// splitRetryOn splits a retry_on value as Envoy does (comma-separated,
// blanks around tokens ignored) and places each token in the source when
// the value is written on one line.
func splitRetryOn(n *node) []retryToken {
	if n == nil || n.kind != kScalar {
		return nil
	}
	v := n.value
	shift := 0
	if n.quoted && n.style != '|' && n.style != '>' {
		shift = 1 // the opening quote
	}
	oneLine := !strings.Contains(v, "\n") && n.style != '|' && n.style != '>'
	var out []retryToken
	off := 0
	for _, part := range strings.Split(v, ",") {
		lead := len(part) - len(strings.TrimLeft(part, " \t"))
		tok := strings.TrimSpace(part)
		if tok != "" {
			t := retryToken{text: tok, line: int(n.line), col: int(n.col)}
			if oneLine {
				t.col = int(n.col) + shift + runeLen(v[:off+lead])
			}
			out = append(out, t)
		}
		off += len(part) + 1
	}
	return out
}

func runeLen(s string) int { return len([]rune(s)) }
