package envoy

import (
	"fmt"
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
	s := strings.TrimSpace(v.value)
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
