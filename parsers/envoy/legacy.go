package envoy

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Well-known types written as objects of their fields, as Envoy reads them.
//
// Envoy reads a configuration with protobuf's JSON parser (YAML is turned
// into JSON first): MessageUtil::loadFromJsonNoThrow in envoyproxy/envoy
// source/common/protobuf/yaml_utility.cc (source/common/protobuf/utility.cc
// in older releases) calls Protobuf::util::JsonStringToMessage with
// case-insensitive enums and nothing else. protobuf's JsonStringToMessage
// (src/google/protobuf/json/json.cc) turns on the parser's legacy
// behaviour: "opts.allow_legacy_syntax = true" ("TODO: Drop this
// setting"), allow_legacy_nonconformant_behavior, true by default, since
// protobuf 6ea16402 (2025). With it, ParseMessage
// (src/google/protobuf/json/internal/parser.cc, at "For some types, the
// ESF parser permits parsing the 'non-special' version", lines 1312-1330 at
// e712d276) reads a Duration, a Timestamp, a FieldMask, a wrapper
// (BoolValue, UInt32Value, ...) or a ListValue given as a JSON object as
// the ordinary message it is: {seconds: 1, nanos: 500000000} is a Duration
// of 1.5 s, {value: true} a BoolValue, {} one of false. protojson, which
// proxylint decodes with, knows only the canonical forms ("1.5s", true),
// so such a value is read here as its fields and handed on in the
// canonical form. Envoy then checks every Duration of the configuration
// (MessageUtil::validateDurationFields): below zero is "Expected positive
// duration", nanos above 999,999,999 or seconds above protobuf's maximum
// "Duration out-of-range".

// legacyObjectType reports whether Envoy's reader takes md written as an
// object of its fields.
func legacyObjectType(md protoreflect.MessageDescriptor) bool {
	if md == nil {
		return false
	}
	switch md.FullName() {
	case "google.protobuf.Duration", "google.protobuf.Timestamp", "google.protobuf.FieldMask", "google.protobuf.ListValue":
		return true
	}
	return isWrapper(md)
}

// legacyFields reads the map n into m as the fields of its message, and
// says whether Envoy takes the result.
func legacyFields(n *node, m protoreflect.Message, depth int) bool {
	return directFields(n, m, m.Descriptor(), false, depth) && legacyProblem(m) == ""
}

// legacyProblem says why Envoy refuses a well-known message read from an
// object, or "".
func legacyProblem(m protoreflect.Message) string {
	md := m.Descriptor()
	if md.FullName() != "google.protobuf.Duration" {
		return ""
	}
	secs := m.Get(md.Fields().ByNumber(1)).Int()
	nanos := m.Get(md.Fields().ByNumber(2)).Int()
	switch {
	case secs < 0 || nanos < 0:
		return fmt.Sprintf("negative duration {seconds: %d, nanos: %d}; Envoy refuses durations below zero (Expected positive duration)", secs, nanos)
	case nanos > 999_999_999 || secs > maxDurationSeconds:
		return fmt.Sprintf("duration {seconds: %d, nanos: %d} out of range: nanos must be below 1,000,000,000 and seconds at most %d (Duration out-of-range)", secs, nanos, int64(maxDurationSeconds))
	}
	return ""
}

// legacyJSON is the canonical JSON of the well-known type md written as
// the object n, for protojson; why says, when Envoy would refuse it, why,
// and at is the node to point at.
func legacyJSON(n *node, md protoreflect.MessageDescriptor) (text, why string, at *node) {
	mt, err := apiTypes().FindMessageByName(md.FullName())
	if err != nil {
		return "", err.Error(), n
	}
	m := mt.New()
	md = m.Descriptor()
	if !directFields(n, m, md, false, 0) {
		for _, k := range n.kids() {
			if !k.dropped && fieldByName(md, k.key.text()) == nil {
				return "", unknownFieldMsg(md, k.key.text()), k.key
			}
		}
		return "", fmt.Sprintf("invalid value for %s written as an object of its fields", md.FullName()), n
	}
	if why := legacyProblem(m); why != "" {
		return "", why, n
	}
	b, err := protojson.Marshal(m.Interface())
	if err != nil {
		return "", err.Error(), n
	}
	return string(b), "", n
}
