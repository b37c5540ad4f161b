package envoy

import (
	"strings"

	"github.com/proxylint/proxylint/model"
)

// retryOnTokens are the retry_on values Envoy knows, with the release that
// added each one when it is recent (EnvoyRetryOnValues and
// EnvoyGrpcRetryOnValues in source/common/http/headers.h; router
// retry_state_impl.cc). Envoy drops any other token without a word.
var retryOnTokens = map[string]model.Version{
	"5xx":                        {},
	"gateway-error":              {},
	"connect-failure":            {},
	"envoy-ratelimited":          {},
	"retriable-4xx":              {},
	"refused-stream":             {},
	"retriable-status-codes":     {},
	"retriable-headers":          {},
	"reset":                      {},
	"reset-before-request":       {Major: 1, Minor: 31},
	"http3-post-connect-failure": {},
	// gRPC status conditions, accepted in the same field.
	"cancelled":          {},
	"deadline-exceeded":  {},
	"internal":           {},
	"resource-exhausted": {},
	"unavailable":        {},
}

// KnownRetryOn reports whether Envoy release t understands retry_on token
// tok.
func KnownRetryOn(tok string, t model.Target) bool {
	since, ok := retryOnTokens[tok]
	if !ok {
		return false
	}
	return since.IsZero() || t.AtLeast(since.Major, since.Minor, since.Patch)
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
