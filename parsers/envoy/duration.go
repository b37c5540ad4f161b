package envoy

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// negativeDuration says why Envoy refuses the value v of field fd, a
// google.protobuf.Duration below zero, or "" when it is not one.
//
// protojson, like protobuf's own JSON reader, accepts "-5s": a Duration
// may be negative. Envoy refuses every negative duration of a
// configuration when it loads it: MessageUtil::validateDurationFields
// checks each Duration with validateDurationUnifiedNoThrow
// (envoyproxy/envoy source/common/protobuf/utility.cc, line 43:
// `if (duration.seconds() < 0 || duration.nanos() < 0)` → "Expected
// positive duration"). The upper bound, ±315,576,000,000 s, is
// protojson's to check.
func negativeDuration(fd protoreflect.FieldDescriptor, v *node) string {
	if fd == nil || fd.IsList() || fd.IsMap() || fd.Message() == nil || fd.Message().FullName() != "google.protobuf.Duration" {
		return ""
	}
	if v == nil || v.kind != kScalar {
		return ""
	}
	s := strings.TrimSpace(v.text())
	digits, ok := strings.CutPrefix(s, "-")
	if !ok {
		return ""
	}
	// "-0s" and "-0.000s" are zero, which Envoy takes.
	if strings.Trim(strings.TrimSuffix(digits, "s"), "0.") == "" {
		return ""
	}
	return fmt.Sprintf("%s: negative duration %q; Envoy refuses durations below zero (Expected positive duration)", fd.Name(), s)
}

// maxDurationSeconds is the largest number of seconds a Duration holds,
// about 10,000 years, as protojson checks it.
const maxDurationSeconds = 315_576_000_000

// parseDurationJSON reads the JSON form of a google.protobuf.Duration as
// protojson reads it: a decimal number of seconds followed by "s", with an
// optional sign, an integer part without leading zeros, and at most nine
// digits after the point ("1s", "0.1s", "1.s", ".1s", "+1s", "-1.5s").
// TestParseDurationJSONMatchesProtojson holds it to protojson.
func parseDurationJSON(s string) (secs int64, nanos int32, ok bool) {
	body, found := strings.CutSuffix(s, "s")
	if !found || body == "" {
		return 0, 0, false
	}
	neg := false
	switch body[0] {
	case '-':
		neg, body = true, body[1:]
	case '+':
		body = body[1:]
	}
	whole, frac, dot := strings.Cut(body, ".")
	if whole == "" && !dot {
		return 0, 0, false
	}
	if len(whole) > 1 && whole[0] == '0' {
		return 0, 0, false
	}
	for _, c := range []byte(whole) {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
	}
	if len(frac) > 9 {
		return 0, 0, false
	}
	var n int64
	for i := range 9 {
		n *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, 0, false
			}
			n += int64(c - '0')
		}
	}
	if whole != "" {
		v, err := strconv.ParseInt(whole, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		secs = v
	}
	if neg {
		secs, n = -secs, -n
	}
	if secs < -maxDurationSeconds || secs > maxDurationSeconds {
		return 0, 0, false
	}
	return secs, int32(n), true
}
