package envoy

import (
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/envoyroute"
)

// KnownRetryOn reports whether Envoy release t understands retry_on token
// tok (the table is envoyroute's, which computes what the tokens do).
func KnownRetryOn(tok string, t model.Target) bool { return envoyroute.KnownRetryOn(tok, t) }

// retryOnSince is the release that added token tok, zero when every
// release knows it (or none does).
func retryOnSince(tok string) model.Version { return envoyroute.RetryOnSince(tok) }

// RetryOnTokens lists the tokens Envoy knows, for suggestions.
func RetryOnTokens() []string { return envoyroute.RetryOnTokens() }

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
	v := n.text()
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
