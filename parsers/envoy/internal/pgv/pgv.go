// Package pgv checks a message against the protoc-gen-validate (PGV)
// rules written in its descriptor's options, the way the ValidateAll
// methods PGV generates for Go do: the same violations in the same order,
// with the same texts and the same error types' methods. It reads values
// only through protoreflect, so it needs no generated code and works on
// dynamicpb messages too: Envoy's API declares its schema constraints
// this way, and Envoy checks them when it loads a configuration.
//
// The first validation of a message type compiles the type's rules into a
// plan; plans are kept and shared, so the descriptors' options are read
// once per type and regular expressions are compiled once, on first use.
package pgv

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	validate "github.com/envoyproxy/protoc-gen-validate/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/proxylint/proxylint/internal/lazyre"
)

// ValidateAll returns what m's generated ValidateAll method would: nil, or
// a multi-error (AllErrors) of violations, each with the methods of a
// generated <Type>ValidationError (Field, Reason, Cause, Key, ErrorName).
func ValidateAll(m protoreflect.Message) error {
	if m == nil || !m.IsValid() {
		return nil
	}
	p := planFor(m.Descriptor())
	if p == nil {
		return nil
	}
	return p.validate(m)
}

// pgvError is one violation, as a generated <Type>ValidationError: the Go
// name of the field (with [index] or [key] for an element), the reason,
// and for an embedded message the errors found in it.
type pgvError struct {
	message string // the Go name of the message type
	field   string
	reason  string
	cause   error
	key     bool
}

func (e pgvError) Field() string     { return e.field }
func (e pgvError) Reason() string    { return e.reason }
func (e pgvError) Cause() error      { return e.cause }
func (e pgvError) Key() bool         { return e.key }
func (e pgvError) ErrorName() string { return e.message + "ValidationError" }

func (e pgvError) Error() string {
	var b strings.Builder
	b.WriteString("invalid ")
	if e.key {
		b.WriteString("key for ")
	}
	b.WriteString(e.message)
	b.WriteByte('.')
	b.WriteString(e.field)
	b.WriteString(": ")
	b.WriteString(e.reason)
	if e.cause != nil {
		b.WriteString(" | caused by: ")
		b.WriteString(e.cause.Error())
	}
	return b.String()
}

// pgvMultiError holds every violation of one message, as a generated
// <Type>MultiError.
type pgvMultiError []error

func (m pgvMultiError) Error() string {
	msgs := make([]string, len(m))
	for i, err := range m {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (m pgvMultiError) AllErrors() []error { return m }

// plans holds the compiled plan of every message type validated so far
// (nil for the types that have no ValidateAll). A plan never changes once
// stored. Descriptors are the keys: a dynamic descriptor and a generated
// one of the same name are different types to protoreflect too.
var plans sync.Map // protoreflect.MessageDescriptor → *msgPlan

func planFor(md protoreflect.MessageDescriptor) *msgPlan {
	if p, ok := plans.Load(md); ok {
		return p.(*msgPlan)
	}
	p, _ := plans.LoadOrStore(md, compileMessage(md))
	return p.(*msgPlan)
}

// msgPlan is what ValidateAll checks in one message type, in its order:
// the fields outside oneofs, then each oneof, then proto3 optional fields
// when they are set.
type msgPlan struct {
	name     string // the Go name of the type, as errors spell it
	disabled bool   // validate.disabled: ValidateAll always returns nil
	fields   []fieldPlan
	oneofs   []oneofPlan
	optional []fieldPlan
	loud     atomic.Int32 // whether a message of the type can break a rule
}

// The states of msgPlan.loud: found on first use, then fixed.
const (
	loudUnknown = iota
	loudWorking
	loudYes
	loudNo
)

// canFail reports whether some message of the type breaks a rule, itself
// or in the messages it holds. A type met again while its own answer is
// being worked out (a recursive type) counts as able to fail: the answer
// errs only towards checking.
func (p *msgPlan) canFail() bool {
	if p == nil || p.disabled {
		return false
	}
	switch p.loud.Load() {
	case loudNo:
		return false
	case loudYes, loudWorking:
		return true
	}
	p.loud.Store(loudWorking)
	loud := p.anyCanFail()
	if loud {
		p.loud.Store(loudYes)
	} else {
		p.loud.Store(loudNo)
	}
	return loud
}

func (p *msgPlan) anyCanFail() bool {
	for _, list := range [][]fieldPlan{p.fields, p.optional} {
		for i := range list {
			if list[i].check.canFail() {
				return true
			}
		}
	}
	for i := range p.oneofs {
		if p.oneofs[i].required {
			return true
		}
		for j := range p.oneofs[i].fields {
			if p.oneofs[i].fields[j].check.canFail() {
				return true
			}
		}
	}
	return false
}

type fieldPlan struct {
	fd    protoreflect.FieldDescriptor
	name  string // the Go name of the field
	check valueCheck
	empty protoreflect.Value // an empty list or map of the field's type
}

type oneofPlan struct {
	od       protoreflect.OneofDescriptor
	name     string
	required bool
	fields   []fieldPlan // the members with something to check
}

func (p *msgPlan) validate(m protoreflect.Message) error {
	if p.disabled {
		return nil
	}
	r := report{message: p.name}
	for i := range p.fields {
		r = p.fields[i].run(r, m)
	}
	for i := range p.oneofs {
		o := &p.oneofs[i]
		fd := m.WhichOneof(o.od)
		if fd == nil {
			if o.required {
				r = r.add(place{name: o.name}, "value is required", nil)
			}
			continue
		}
		for j := range o.fields {
			if f := &o.fields[j]; f.fd == fd {
				r = f.check.check(r, place{name: f.name}, m.Get(fd), true)
			}
		}
	}
	for i := range p.optional {
		if f := &p.optional[i]; m.Has(f.fd) {
			r = f.check.check(r, place{name: f.name}, m.Get(f.fd), true)
		}
	}
	if len(r.errs) == 0 {
		return nil
	}
	return pgvMultiError(r.errs)
}

// run checks one field of m. An unset message field and an empty list or
// map are not read: reading them through protoreflect allocates.
func (f *fieldPlan) run(r report, m protoreflect.Message) report {
	if !f.check.canFail() {
		return r
	}
	at := place{name: f.name}
	switch {
	case f.fd.IsList() || f.fd.IsMap():
		if !m.Has(f.fd) {
			return f.check.check(r, at, f.empty, true)
		}
	case f.fd.Message() != nil:
		if !m.Has(f.fd) {
			return f.check.check(r, at, protoreflect.Value{}, false)
		}
	}
	return f.check.check(r, at, m.Get(f.fd), true)
}

// report collects one message's violations. It is passed and returned by
// value, so that a message without violations costs no allocation.
type report struct {
	message string
	errs    []error
}

func (r report) add(at place, reason string, cause error) report {
	r.errs = append(r.errs, pgvError{message: r.message, field: at.String(), reason: reason, cause: cause})
	return r
}

// place is where a violation is: a field, or an element of a repeated
// field or of a map. Its text is built only when a violation is found.
type place struct {
	name  string
	index int
	key   protoreflect.MapKey
	which uint8 // placeField, placeIndex or placeKey
}

const (
	placeField = iota
	placeIndex
	placeKey
)

func (p place) String() string {
	switch p.which {
	case placeIndex:
		return p.name + "[" + strconv.Itoa(p.index) + "]"
	case placeKey:
		return p.name + "[" + fmt.Sprint(p.key.Interface()) + "]"
	}
	return p.name
}

// valueCheck checks one value: a field's, or an element's. set is false
// for a message field that is not set.
type valueCheck interface {
	check(r report, at place, v protoreflect.Value, set bool) report
	// canFail is false when no value can break the check: the field
	// need not be read at all.
	canFail() bool
}

// failure is why a value breaks a rule; most rules have one fixed failure.
type failure struct {
	reason string
	cause  error
}

// test checks one rule on a scalar value: nil when the value keeps it.
type test func(v protoreflect.Value) *failure

// scalarCheck runs a scalar's tests in order; ignore_empty skips them all
// for the zero value.
type scalarCheck struct {
	skipZero bool
	tests    []test
}

func (c *scalarCheck) check(r report, at place, v protoreflect.Value, _ bool) report {
	if c.skipZero && isZero(v) {
		return r
	}
	for _, t := range c.tests {
		if f := t(v); f != nil {
			r = r.add(at, f.reason, f.cause)
		}
	}
	return r
}

func (c *scalarCheck) canFail() bool { return true }

func isZero(v protoreflect.Value) bool {
	switch x := v.Interface().(type) {
	case string:
		return x == ""
	case []byte:
		return len(x) == 0
	case int32:
		return x == 0
	case int64:
		return x == 0
	case uint32:
		return x == 0
	case uint64:
		return x == 0
	case float32:
		return x == 0
	case float64:
		return x == 0
	case protoreflect.EnumNumber:
		return x == 0
	}
	return false
}

// messageCheck is a message field's required rule and the validation of
// the message it holds, when its type has a ValidateAll.
type messageCheck struct {
	required bool
	plan     func() *msgPlan // nil: nothing to validate inside
}

func (c *messageCheck) canFail() bool {
	return c.required || c.plan != nil && c.plan().canFail()
}

func (c *messageCheck) check(r report, at place, v protoreflect.Value, set bool) report {
	if !set {
		if c.required {
			r = r.add(at, "value is required", nil)
		}
		return r
	}
	if c.plan == nil {
		return r
	}
	m := v.Message()
	if !m.IsValid() {
		return r
	}
	if err := c.plan().validate(m); err != nil {
		r = r.add(at, "embedded message failed validation", err)
	}
	return r
}

// wrapperCheck applies scalar rules to the value a google.protobuf.*Value
// holds. The generated code reports those at the bare field name, without
// an element's index.
type wrapperCheck struct {
	required bool
	value    protoreflect.FieldDescriptor
	inner    valueCheck
}

func (c *wrapperCheck) canFail() bool { return true }

func (c *wrapperCheck) check(r report, at place, v protoreflect.Value, set bool) report {
	if !set {
		if c.required {
			r = r.add(at, "value is required and must not be nil.", nil)
		}
		return r
	}
	return c.inner.check(r, place{name: at.name}, v.Message().Get(c.value), true)
}

// anyCheck is the any rules: required, and the type URL in or not in a list.
type anyCheck struct {
	required bool
	typeURL  protoreflect.FieldDescriptor
	in       map[string]bool
	notIn    map[string]bool
	inMsg    string
	notInMsg string
}

func (c *anyCheck) canFail() bool { return true }

func (c *anyCheck) check(r report, at place, v protoreflect.Value, set bool) report {
	if !set {
		if c.required {
			r = r.add(at, "value is required", nil)
		}
		return r
	}
	url := v.Message().Get(c.typeURL).String()
	switch {
	case c.in != nil && !c.in[url]:
		r = r.add(at, c.inMsg, nil)
	case c.notIn != nil && c.notIn[url]:
		r = r.add(at, c.notInMsg, nil)
	}
	return r
}

// timeCheck is the duration and timestamp rules: required, then, when the
// message is set and some rule compares it, its validity and the
// comparisons.
type timeCheck struct {
	required bool
	invalid  string // the reason when the value is out of range
	read     func(m protoreflect.Message) (timeValue, error)
	tests    []func(timeValue) *failure // nil when no rule compares
}

// timeValue is a duration or a timestamp.
type timeValue struct {
	d time.Duration
	t time.Time
}

func (c *timeCheck) canFail() bool { return true }

func (c *timeCheck) check(r report, at place, v protoreflect.Value, set bool) report {
	if !set {
		if c.required {
			r = r.add(at, "value is required", nil)
		}
		return r
	}
	if c.tests == nil {
		return r
	}
	tv, err := c.read(v.Message())
	if err != nil {
		r = r.add(at, c.invalid, err)
		return r
	}
	for _, t := range c.tests {
		if f := t(tv); f != nil {
			r = r.add(at, f.reason, f.cause)
		}
	}
	return r
}

// listCheck is the repeated rules: the number of items, uniqueness, and
// the rules for each item.
type listCheck struct {
	skipEmpty bool
	count     func(n int) *failure
	unique    bool
	item      valueCheck
}

func (c *listCheck) canFail() bool {
	return c.count != nil || c.unique || c.item != nil && c.item.canFail()
}

func (c *listCheck) check(r report, at place, v protoreflect.Value, _ bool) report {
	l := v.List()
	n := l.Len()
	if c.skipEmpty && n == 0 {
		return r
	}
	if c.count != nil {
		if f := c.count(n); f != nil {
			r = r.add(at, f.reason, nil)
		}
	}
	if !c.unique && c.item == nil {
		return r
	}
	var seen map[any]bool
	if c.unique {
		seen = make(map[any]bool, n)
	}
	for i := 0; i < n; i++ {
		item := l.Get(i)
		elem := place{name: at.name, index: i, which: placeIndex}
		if c.unique {
			k := uniqueKey(item)
			if seen[k] {
				r = r.add(elem, "repeated value must contain unique items", nil)
			} else {
				seen[k] = true
			}
		}
		if c.item != nil {
			r = c.item.check(r, elem, item, true)
		}
	}
	return r
}

// uniqueKey is what makes two items equal to the generated code: their Go
// values (bytes compared as strings, messages by identity).
func uniqueKey(v protoreflect.Value) any {
	switch x := v.Interface().(type) {
	case []byte:
		return string(x)
	case protoreflect.Message:
		return x.Interface()
	default:
		return x
	}
}

// mapCheck is the map rules: the number of pairs, and, in the order of
// the sorted keys, no_sparse and the rules for each key and value.
type mapCheck struct {
	skipEmpty bool
	count     func(n int) *failure
	noSparse  bool // only for message values, the only ones that can be nil
	keys      valueCheck
	values    valueCheck
}

func (c *mapCheck) canFail() bool {
	return c.count != nil || c.noSparse || c.keys != nil && c.keys.canFail() || c.values != nil && c.values.canFail()
}

func (c *mapCheck) check(r report, at place, v protoreflect.Value, _ bool) report {
	m := v.Map()
	n := m.Len()
	if c.skipEmpty && n == 0 {
		return r
	}
	if c.count != nil {
		if f := c.count(n); f != nil {
			r = r.add(at, f.reason, nil)
		}
	}
	if !c.noSparse && c.keys == nil && c.values == nil {
		return r
	}
	for _, k := range mapKeysInOrder(m) {
		val := m.Get(k)
		elem := place{name: at.name, key: k, which: placeKey}
		if c.noSparse && !val.Message().IsValid() {
			r = r.add(elem, "value cannot be sparse, all pairs must be non-nil", nil)
		}
		if c.keys != nil {
			r = c.keys.check(r, elem, k.Value(), true)
		}
		if c.values != nil {
			r = c.values.check(r, elem, val, true)
		}
	}
	return r
}

// mapKeysInOrder orders a map's keys as Go's < orders its key type.
func mapKeysInOrder(m protoreflect.Map) []protoreflect.MapKey {
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
		switch x := a.Interface().(type) {
		case string:
			return strings.Compare(x, b.String())
		case int32, int64:
			return cmp.Compare(a.Int(), b.Int())
		case uint32, uint64:
			return cmp.Compare(a.Uint(), b.Uint())
		case bool:
			return cmp.Compare(boolRank(x), boolRank(b.Bool()))
		}
		return 0
	})
	return keys
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compileMessage reads md's rules. It returns nil for the types that have
// no ValidateAll method: their messages are never checked.
func compileMessage(md protoreflect.MessageDescriptor) *msgPlan {
	if !hasValidator(md) {
		return nil
	}
	p := &msgPlan{name: goTypeName(md)}
	if disabled, _ := extensionOf[bool](md.Options(), validate.E_Disabled); disabled {
		p.disabled = true
		return p
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		od := fd.ContainingOneof()
		if od != nil && !od.IsSynthetic() {
			continue // checked with its oneof
		}
		c := compileField(fd)
		if c == nil {
			continue
		}
		f := fieldPlan{fd: fd, name: goCamelCase(string(fd.Name())), check: c, empty: emptyValue(fd)}
		if od != nil {
			p.optional = append(p.optional, f)
		} else {
			p.fields = append(p.fields, f)
		}
	}
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		o := oneofPlan{od: od, name: goCamelCase(string(od.Name()))}
		o.required, _ = extensionOf[bool](od.Options(), validate.E_Required)
		members := od.Fields()
		for j := 0; j < members.Len(); j++ {
			fd := members.Get(j)
			if c := compileField(fd); c != nil {
				o.fields = append(o.fields, fieldPlan{fd: fd, name: goCamelCase(string(fd.Name())), check: c})
			}
		}
		if o.required || len(o.fields) > 0 {
			p.oneofs = append(p.oneofs, o)
		}
	}
	return p
}

// emptyValue is an empty list or map for a repeated or map field, read
// from a new dynamic message so that it is shared and never changed.
func emptyValue(fd protoreflect.FieldDescriptor) protoreflect.Value {
	if !fd.IsList() && !fd.IsMap() {
		return protoreflect.Value{}
	}
	return dynamicpb.NewMessage(fd.ContainingMessage()).Get(fd)
}

// hasValidator reports whether PGV generated a ValidateAll for md's Go
// type: it did for Envoy's, xDS's and UDPA's messages, unless a message
// asks to be ignored, and not for the well-known types, Google's APIs,
// CEL or PGV's own rules.
func hasValidator(md protoreflect.MessageDescriptor) bool {
	name := string(md.FullName())
	if !strings.HasPrefix(name, "envoy.") && !strings.HasPrefix(name, "xds.") && !strings.HasPrefix(name, "udpa.") {
		return false
	}
	if md.IsMapEntry() {
		return false
	}
	ignored, _ := extensionOf[bool](md.Options(), validate.E_Ignored)
	return !ignored
}

// extensionOf reads an extension from descriptor options. Options parsed
// before the extension was registered keep it as unknown bytes; those are
// parsed again with the extensions linked now.
func extensionOf[T any](opts proto.Message, xt protoreflect.ExtensionType) (T, bool) {
	var zero T
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return zero, false
	}
	if !proto.HasExtension(opts, xt) {
		unknown := opts.ProtoReflect().GetUnknown()
		if len(unknown) == 0 {
			return zero, false
		}
		again := opts.ProtoReflect().New().Interface()
		if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(unknown, again); err != nil || !proto.HasExtension(again, xt) {
			return zero, false
		}
		opts = again
	}
	v, ok := proto.GetExtension(opts, xt).(T)
	return v, ok
}

// goTypeName is the Go name of a message type: nested types are joined to
// their parents with underscores.
func goTypeName(md protoreflect.MessageDescriptor) string {
	name := goCamelCase(string(md.Name()))
	if parent, ok := md.Parent().(protoreflect.MessageDescriptor); ok {
		return goTypeName(parent) + "_" + name
	}
	return name
}

// goCamelCase turns a proto name into the Go name protoc-gen-go gives it:
// words start upper case, an underscore before a lower-case letter goes,
// a leading underscore becomes X.
func goCamelCase(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && i+1 < len(s) && isLower(s[i+1]):
		case c == '.':
			b = append(b, '_')
		case c == '_' && (i == 0 || s[i-1] == '.'):
			b = append(b, 'X')
		case c == '_' && i+1 < len(s) && isLower(s[i+1]):
		case '0' <= c && c <= '9':
			b = append(b, c)
		default:
			if isLower(c) {
				c -= 'a' - 'A'
			}
			b = append(b, c)
			for ; i+1 < len(s) && isLower(s[i+1]); i++ {
				b = append(b, s[i+1])
			}
		}
	}
	return string(b)
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// compileField turns a field's rules into its check; nil when there is
// nothing to check.
func compileField(fd protoreflect.FieldDescriptor) valueCheck {
	rules, _ := extensionOf[*validate.FieldRules](fd.Options(), validate.E_Rules)
	switch {
	case fd.IsMap():
		return compileMap(fd, rules)
	case fd.IsList():
		return compileList(fd, rules)
	}
	return compileValue(fd, rules, fd.Kind() == protoreflect.EnumKind)
}

func compileList(fd protoreflect.FieldDescriptor, rules *validate.FieldRules) valueCheck {
	if rules.GetType() != nil && rules.GetRepeated() == nil {
		return nil // rules of another type: PGV refuses them
	}
	r := rules.GetRepeated()
	if r == nil {
		r = &validate.RepeatedRules{}
	}
	c := &listCheck{
		skipEmpty: r.GetIgnoreEmpty(),
		count:     countTest(r.GetMinItems(), r.MaxItems, "item(s)", "items"),
		unique:    r.GetUnique(),
		item:      compileValue(fd, r.GetItems(), false),
	}
	if c.count == nil && !c.unique && c.item == nil {
		return nil
	}
	return c
}

func compileMap(fd protoreflect.FieldDescriptor, rules *validate.FieldRules) valueCheck {
	r := rules.GetMap()
	if r == nil && (rules.GetType() != nil || fd.MapValue().Message() == nil) {
		return nil
	}
	if r == nil {
		r = &validate.MapRules{}
	}
	c := &mapCheck{
		skipEmpty: r.GetIgnoreEmpty(),
		count:     countTest(r.GetMinPairs(), r.MaxPairs, "pair(s)", "pairs"),
		noSparse:  r.GetNoSparse() && fd.MapValue().Message() != nil,
		keys:      compileValue(fd.MapKey(), r.GetKeys(), false),
		values:    compileValue(fd.MapValue(), r.GetValues(), false),
	}
	if c.count == nil && !c.noSparse && c.keys == nil && c.values == nil {
		return nil
	}
	return c
}

// countTest is min_items/max_items (or min_pairs/max_pairs) for n things.
func countTest(lo uint64, hi *uint64, unit, units string) func(int) *failure {
	switch {
	case lo > 0 && hi != nil && *hi == lo:
		f := &failure{reason: fmt.Sprintf("value must contain exactly %d %s", lo, unit)}
		return func(n int) *failure { return failIf(uint64(n) != lo, f) }
	case lo > 0 && hi != nil:
		f := &failure{reason: fmt.Sprintf("value must contain between %d and %d %s, inclusive", lo, *hi, units)}
		return func(n int) *failure { return failIf(uint64(n) < lo || uint64(n) > *hi, f) }
	case lo > 0:
		f := &failure{reason: fmt.Sprintf("value must contain at least %d %s", lo, unit)}
		return func(n int) *failure { return failIf(uint64(n) < lo, f) }
	case hi != nil:
		f := &failure{reason: fmt.Sprintf("value must contain no more than %d %s", *hi, unit)}
		return func(n int) *failure { return failIf(uint64(n) > *hi, f) }
	}
	return nil
}

func failIf(broken bool, f *failure) *failure {
	if broken {
		return f
	}
	return nil
}

// compileValue turns the rules for one value (a singular field, an item or
// a map key or value, described by e) into its check. named is true for a
// singular enum field, whose rules' messages name the enum's values.
func compileValue(e protoreflect.FieldDescriptor, rules *validate.FieldRules, named bool) valueCheck {
	msgRules := rules.GetMessage()
	switch t := rules.GetType().(type) {
	case nil:
		if e.Message() == nil {
			return nil
		}
		return compileMessageField(e.Message(), msgRules)
	case *validate.FieldRules_Enum:
		if e.Kind() != protoreflect.EnumKind {
			return nil
		}
		return scalar(false, enumTests(e.Enum(), t.Enum, named))
	case *validate.FieldRules_Any:
		if !isMessage(e, "google.protobuf.Any") {
			return requiredOnly(e, t.Any.GetRequired())
		}
		return compileAny(e.Message(), t.Any)
	case *validate.FieldRules_Duration:
		if !isMessage(e, "google.protobuf.Duration") {
			return requiredOnly(e, t.Duration.GetRequired())
		}
		return compileDuration(t.Duration)
	case *validate.FieldRules_Timestamp:
		if !isMessage(e, "google.protobuf.Timestamp") {
			return requiredOnly(e, t.Timestamp.GetRequired())
		}
		return compileTimestamp(t.Timestamp)
	case *validate.FieldRules_Repeated, *validate.FieldRules_Map:
		return nil // on a value that is neither: PGV refuses them
	}
	// Scalar rules, on the scalar or on the wrapper message holding it.
	value := e
	if e.Message() != nil {
		value = e.Message().Fields().ByNumber(1)
		if value == nil || !strings.HasPrefix(string(e.Message().FullName()), "google.protobuf.") {
			return nil
		}
	}
	inner := compileScalar(value, rules)
	if inner == nil {
		return nil
	}
	if e.Message() != nil {
		return &wrapperCheck{required: msgRules.GetRequired(), value: value, inner: inner}
	}
	return inner
}

func isMessage(e protoreflect.FieldDescriptor, name protoreflect.FullName) bool {
	return e.Message() != nil && e.Message().FullName() == name
}

// requiredOnly is any, duration or timestamp rules on a message of
// another type: the generated code checks only that it is set, and does
// not validate inside it.
func requiredOnly(e protoreflect.FieldDescriptor, required bool) valueCheck {
	if e.Message() == nil || !required {
		return nil
	}
	return &messageCheck{required: true}
}

// compileMessageField is a message value without type rules: required,
// and validation inside (unless skipped) when its type has a ValidateAll.
func compileMessageField(md protoreflect.MessageDescriptor, r *validate.MessageRules) valueCheck {
	c := &messageCheck{required: r.GetRequired()}
	if !r.GetSkip() && hasValidator(md) {
		c.plan = sync.OnceValue(func() *msgPlan { return planFor(md) })
	}
	if !c.required && c.plan == nil {
		return nil
	}
	return c
}

// compileScalar is the rules for a bool, number, string or bytes value.
func compileScalar(value protoreflect.FieldDescriptor, rules *validate.FieldRules) valueCheck {
	switch t := rules.GetType().(type) {
	case *validate.FieldRules_Bool:
		if value.Kind() != protoreflect.BoolKind || t.Bool == nil || t.Bool.Const == nil {
			return nil
		}
		want := t.Bool.GetConst()
		f := &failure{reason: fmt.Sprint("value must equal ", want)}
		return scalar(false, []test{func(v protoreflect.Value) *failure { return failIf(v.Bool() != want, f) }})
	case *validate.FieldRules_String_:
		if value.Kind() != protoreflect.StringKind {
			return nil
		}
		return scalar(t.String_.GetIgnoreEmpty(), stringTests(t.String_))
	case *validate.FieldRules_Bytes:
		if value.Kind() != protoreflect.BytesKind {
			return nil
		}
		return scalar(t.Bytes.GetIgnoreEmpty(), bytesTests(t.Bytes))
	}
	return compileNumber(value, rules)
}

func scalar(skipZero bool, tests []test) valueCheck {
	if len(tests) == 0 {
		return nil
	}
	return &scalarCheck{skipZero: skipZero, tests: tests}
}

// compileNumber is the rules of the twelve numeric types. They share their
// field names (const, lt, lte, gt, gte, in, not_in, ignore_empty), so they
// are read through protoreflect, each as the Go type of its kind.
func compileNumber(value protoreflect.FieldDescriptor, rules *validate.FieldRules) valueCheck {
	oneof := rules.ProtoReflect().Descriptor().Oneofs().ByName("type")
	if oneof == nil {
		return nil
	}
	set := rules.ProtoReflect().WhichOneof(oneof)
	if set == nil || set.Message() == nil {
		return nil
	}
	r := rules.ProtoReflect().Get(set).Message()
	constFd := r.Descriptor().Fields().ByName("const")
	if constFd == nil || constFd.Kind() != value.Kind() {
		return nil // rules for another type: PGV refuses them
	}
	skip := numberRules[bool](r, "ignore_empty", func(v protoreflect.Value) bool { return v.Bool() })
	skipZero := skip != nil && *skip
	switch value.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return scalar(skipZero, numberTests(r, func(v protoreflect.Value) int32 { return int32(v.Int()) }))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return scalar(skipZero, numberTests(r, protoreflect.Value.Int))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return scalar(skipZero, numberTests(r, func(v protoreflect.Value) uint32 { return uint32(v.Uint()) }))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return scalar(skipZero, numberTests(r, protoreflect.Value.Uint))
	case protoreflect.FloatKind:
		return scalar(skipZero, numberTests(r, func(v protoreflect.Value) float32 { return float32(v.Float()) }))
	case protoreflect.DoubleKind:
		return scalar(skipZero, numberTests(r, protoreflect.Value.Float))
	}
	return nil
}

// numberRules reads one optional field of a rules message as T; nil when
// it is not set.
func numberRules[T any](r protoreflect.Message, name protoreflect.Name, conv func(protoreflect.Value) T) *T {
	fd := r.Descriptor().Fields().ByName(name)
	if fd == nil || !r.Has(fd) {
		return nil
	}
	v := conv(r.Get(fd))
	return &v
}

func numberList[T any](r protoreflect.Message, name protoreflect.Name, conv func(protoreflect.Value) T) []T {
	fd := r.Descriptor().Fields().ByName(name)
	if fd == nil || !fd.IsList() {
		return nil
	}
	l := r.Get(fd).List()
	out := make([]T, l.Len())
	for i := range out {
		out[i] = conv(l.Get(i))
	}
	return out
}

// numberTests is const, then the range, then in or not_in, as the
// generated code checks them.
func numberTests[T int32 | int64 | uint32 | uint64 | float32 | float64](r protoreflect.Message, conv func(protoreflect.Value) T) []test {
	var tests []test
	if want := numberRules(r, "const", conv); want != nil {
		f := &failure{reason: fmt.Sprint("value must equal ", *want)}
		tests = append(tests, func(v protoreflect.Value) *failure { return failIf(conv(v) != *want, f) })
	}
	lt, lte := numberRules(r, "lt", conv), numberRules(r, "lte", conv)
	gt, gte := numberRules(r, "gt", conv), numberRules(r, "gte", conv)
	if rt := rangeTest(lt, lte, gt, gte, ordered[T]); rt != nil {
		tests = append(tests, func(v protoreflect.Value) *failure { return rt(conv(v)) })
	}
	in, notIn := numberList(r, "in", conv), numberList(r, "not_in", conv)
	if t := inTest(in, notIn, fmt.Sprint("value must be in list ", in), fmt.Sprint("value must not be in list ", notIn)); t != nil {
		tests = append(tests, func(v protoreflect.Value) *failure { return t(conv(v)) })
	}
	return tests
}

// ordering compares a value with a bound: the sign of a-b, and false
// when they are unordered (NaN), which breaks no comparison.
type ordering[T any] func(a, b T) (int, bool)

func ordered[T cmp.Ordered](a, b T) (int, bool) {
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	case a == b:
		return 0, true
	}
	return 0, false
}

// rangeTest is the lt/lte/gt/gte rules. A range whose lower bound is not
// below its upper bound means "outside".
func rangeTest[T any](lt, lte, gt, gte *T, order ordering[T]) func(T) *failure {
	str := func(x *T) string { return fmt.Sprint(*x) }
	fail := func(parts ...string) *failure { return &failure{reason: strings.Join(parts, "")} }
	is := func(v T, b *T, want func(int) bool) bool {
		c, ok := order(v, *b)
		return ok && want(c)
	}
	below := func(c int) bool { return c < 0 }
	belowEq := func(c int) bool { return c <= 0 }
	above := func(c int) bool { return c > 0 }
	aboveEq := func(c int) bool { return c >= 0 }
	switch {
	case lt != nil && gt != nil:
		if is(*lt, gt, above) {
			f := fail("value must be inside range (", str(gt), ", ", str(lt), ")")
			return func(v T) *failure { return failIf(is(v, gt, belowEq) || is(v, lt, aboveEq), f) }
		}
		f := fail("value must be outside range [", str(lt), ", ", str(gt), "]")
		return func(v T) *failure { return failIf(is(v, lt, aboveEq) && is(v, gt, belowEq), f) }
	case lt != nil && gte != nil:
		if is(*lt, gte, above) {
			f := fail("value must be inside range [", str(gte), ", ", str(lt), ")")
			return func(v T) *failure { return failIf(is(v, gte, below) || is(v, lt, aboveEq), f) }
		}
		f := fail("value must be outside range [", str(lt), ", ", str(gte), ")")
		return func(v T) *failure { return failIf(is(v, lt, aboveEq) && is(v, gte, below), f) }
	case lt != nil:
		f := fail("value must be less than ", str(lt))
		return func(v T) *failure { return failIf(is(v, lt, aboveEq), f) }
	case lte != nil && gt != nil:
		if is(*lte, gt, above) {
			f := fail("value must be inside range (", str(gt), ", ", str(lte), "]")
			return func(v T) *failure { return failIf(is(v, gt, belowEq) || is(v, lte, above), f) }
		}
		f := fail("value must be outside range (", str(lte), ", ", str(gt), "]")
		return func(v T) *failure { return failIf(is(v, lte, above) && is(v, gt, belowEq), f) }
	case lte != nil && gte != nil:
		if is(*lte, gte, above) {
			f := fail("value must be inside range [", str(gte), ", ", str(lte), "]")
			return func(v T) *failure { return failIf(is(v, gte, below) || is(v, lte, above), f) }
		}
		f := fail("value must be outside range (", str(lte), ", ", str(gte), ")")
		return func(v T) *failure { return failIf(is(v, lte, above) && is(v, gte, below), f) }
	case lte != nil:
		f := fail("value must be less than or equal to ", str(lte))
		return func(v T) *failure { return failIf(is(v, lte, above), f) }
	case gt != nil:
		f := fail("value must be greater than ", str(gt))
		return func(v T) *failure { return failIf(is(v, gt, belowEq), f) }
	case gte != nil:
		f := fail("value must be greater than or equal to ", str(gte))
		return func(v T) *failure { return failIf(is(v, gte, below), f) }
	}
	return nil
}

// inTest is the in rule, or else the not_in rule, with their reasons.
func inTest[T comparable](in, notIn []T, inReason, notInReason string) func(T) *failure {
	set := func(items []T) map[T]bool {
		m := make(map[T]bool, len(items))
		for _, x := range items {
			m[x] = true
		}
		return m
	}
	switch {
	case len(in) > 0:
		m, f := set(in), &failure{reason: inReason}
		return func(v T) *failure { return failIf(!m[v], f) }
	case len(notIn) > 0:
		m, f := set(notIn), &failure{reason: notInReason}
		return func(v T) *failure { return failIf(m[v], f) }
	}
	return nil
}

// enumTests is const, in or not_in, then defined_only. Their reasons name
// the values of a singular enum field and give numbers otherwise.
func enumTests(ed protoreflect.EnumDescriptor, r *validate.EnumRules, named bool) []test {
	if r == nil {
		return nil
	}
	show := func(n int32) string {
		if !named {
			return strconv.Itoa(int(n))
		}
		if v := ed.Values().ByNumber(protoreflect.EnumNumber(n)); v != nil {
			return string(v.Name())
		}
		return ""
	}
	list := func(l []int32) string {
		s := make([]string, len(l))
		for i, n := range l {
			s[i] = show(n)
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	num := func(v protoreflect.Value) int32 { return int32(v.Enum()) }
	var tests []test
	if r.Const != nil {
		want := r.GetConst()
		f := &failure{reason: "value must equal " + show(want)}
		tests = append(tests, func(v protoreflect.Value) *failure { return failIf(num(v) != want, f) })
	}
	in, notIn := r.GetIn(), r.GetNotIn()
	if t := inTest(in, notIn, "value must be in list "+list(in), "value must not be in list "+list(notIn)); t != nil {
		tests = append(tests, func(v protoreflect.Value) *failure { return t(num(v)) })
	}
	if r.GetDefinedOnly() {
		f := &failure{reason: "value must be one of the defined enum values"}
		tests = append(tests, func(v protoreflect.Value) *failure {
			return failIf(ed.Values().ByNumber(v.Enum()) == nil, f)
		})
	}
	return tests
}

// The patterns that well_known_regex stands for: PGV's generator writes
// them into the rules as pattern, and the non-strict header rules use the
// looser one.
const (
	headerNamePattern   = "^:?[0-9a-zA-Z!#$%&'*+-.^_|~\x60]+$"
	headerValuePattern  = "^[^\u0000-\u0008\u000A-\u001F\u007F]*$"
	headerStringPattern = "^[^\u0000\u000A\u000D]*$"
)

var uuidPattern = lazyre.New("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

// stringPattern is the pattern a string must match, well_known_regex
// included, and whether there is one.
func stringPattern(r *validate.StringRules) (string, bool) {
	wk := r.GetWellKnownRegex()
	if wk == validate.KnownRegex_UNKNOWN || r.Pattern != nil {
		return r.GetPattern(), r.Pattern != nil
	}
	loose := r.Strict != nil && !r.GetStrict()
	switch wk {
	case validate.KnownRegex_HTTP_HEADER_NAME:
		if loose {
			return headerStringPattern, true
		}
		return headerNamePattern, true
	case validate.KnownRegex_HTTP_HEADER_VALUE:
		if loose {
			return headerStringPattern, true
		}
		return headerValuePattern, true
	}
	return "", false
}

// compiledPattern compiles a rule's pattern on its first use. A pattern Go
// cannot compile (the generated code would not even start) breaks the
// rule for every value, with the compile error as the cause.
func compiledPattern(pattern string) func() (*regexp.Regexp, error) {
	return sync.OnceValues(func() (*regexp.Regexp, error) { return regexp.Compile(pattern) })
}

func patternTest(pattern string, match func(re *regexp.Regexp, v protoreflect.Value) bool) test {
	re := compiledPattern(pattern)
	reason := "value does not match regex pattern " + strconv.Quote(pattern)
	f := &failure{reason: reason}
	return func(v protoreflect.Value) *failure {
		x, err := re()
		if err != nil {
			return &failure{reason: reason, cause: err}
		}
		return failIf(!match(x, v), f)
	}
}

// stringTests is the string rules in the generated code's order: const,
// in/not_in, length in runes, length in bytes, prefix, suffix, contains,
// not_contains, the well-known formats, pattern.
func stringTests(r *validate.StringRules) []test {
	if r == nil {
		return nil
	}
	var tests []test
	add := func(broken func(s string) bool, reason string) {
		f := &failure{reason: reason}
		tests = append(tests, func(v protoreflect.Value) *failure { return failIf(broken(v.String()), f) })
	}
	if r.Const != nil {
		want := r.GetConst()
		add(func(s string) bool { return s != want }, "value must equal "+want)
	}
	in, notIn := r.GetIn(), r.GetNotIn()
	if t := inTest(in, notIn, fmt.Sprint("value must be in list ", in), fmt.Sprint("value must not be in list ", notIn)); t != nil {
		tests = append(tests, func(v protoreflect.Value) *failure { return t(v.String()) })
	}
	tests = append(tests, lengthTests(utf8.RuneCountInString, r.Len, r.MinLen, r.MaxLen, "runes")...)
	octets := func(s string) int { return len(s) }
	tests = append(tests, lengthTests(octets, r.LenBytes, r.MinBytes, r.MaxBytes, "bytes")...)
	if r.Prefix != nil {
		p := r.GetPrefix()
		add(func(s string) bool { return !strings.HasPrefix(s, p) }, "value does not have prefix "+strconv.Quote(p))
	}
	if r.Suffix != nil {
		x := r.GetSuffix()
		add(func(s string) bool { return !strings.HasSuffix(s, x) }, "value does not have suffix "+strconv.Quote(x))
	}
	if r.Contains != nil {
		x := r.GetContains()
		add(func(s string) bool { return !strings.Contains(s, x) }, "value does not contain substring "+strconv.Quote(x))
	}
	if r.NotContains != nil {
		x := r.GetNotContains()
		add(func(s string) bool { return strings.Contains(s, x) }, "value contains substring "+strconv.Quote(x))
	}
	if t := wellKnownTest(r); t != nil {
		tests = append(tests, t)
	}
	if p, ok := stringPattern(r); ok {
		tests = append(tests, patternTest(p, func(re *regexp.Regexp, v protoreflect.Value) bool { return re.MatchString(v.String()) }))
	}
	return tests
}

// lengthTests is len, min and max on a length; min equal to max means len.
func lengthTests(length func(string) int, exact, lo, hi *uint64, unit string) []test {
	if exact == nil && lo != nil && hi != nil && *lo == *hi {
		exact = lo
	}
	var broken func(n uint64) bool
	var reason string
	switch {
	case exact != nil:
		broken, reason = func(n uint64) bool { return n != *exact }, fmt.Sprintf("value length must be %d %s", *exact, unit)
	case lo != nil && hi != nil:
		broken, reason = func(n uint64) bool { return n < *lo || n > *hi }, fmt.Sprintf("value length must be between %d and %d %s, inclusive", *lo, *hi, unit)
	case lo != nil:
		broken, reason = func(n uint64) bool { return n < *lo }, fmt.Sprintf("value length must be at least %d %s", *lo, unit)
	case hi != nil:
		broken, reason = func(n uint64) bool { return n > *hi }, fmt.Sprintf("value length must be at most %d %s", *hi, unit)
	default:
		return nil
	}
	f := &failure{reason: reason}
	return []test{func(v protoreflect.Value) *failure { return failIf(broken(uint64(length(v.String()))), f) }}
}

// wellKnownTest is the string formats: ip, ipv4, ipv6, email, hostname,
// address, uri, uri_ref, uuid.
func wellKnownTest(r *validate.StringRules) test {
	fixed := func(broken func(string) bool, reason string) test {
		f := &failure{reason: reason}
		return func(v protoreflect.Value) *failure { return failIf(broken(v.String()), f) }
	}
	caused := func(check func(string) error, reason string) test {
		return func(v protoreflect.Value) *failure {
			if err := check(v.String()); err != nil {
				return &failure{reason: reason, cause: err}
			}
			return nil
		}
	}
	switch {
	case r.GetIp():
		return fixed(func(s string) bool { return net.ParseIP(s) == nil }, "value must be a valid IP address")
	case r.GetIpv4():
		return fixed(func(s string) bool { ip := net.ParseIP(s); return ip == nil || ip.To4() == nil }, "value must be a valid IPv4 address")
	case r.GetIpv6():
		return fixed(func(s string) bool { ip := net.ParseIP(s); return ip == nil || ip.To4() != nil }, "value must be a valid IPv6 address")
	case r.GetEmail():
		return caused(checkEmail, "value must be a valid email address")
	case r.GetHostname():
		return caused(checkHostname, "value must be a valid hostname")
	case r.GetAddress():
		return fixed(func(s string) bool { return checkHostname(s) != nil && net.ParseIP(s) == nil }, "value must be a valid hostname, or ip address")
	case r.GetUri():
		return func(v protoreflect.Value) *failure {
			u, err := url.Parse(v.String())
			switch {
			case err != nil:
				return &failure{reason: "value must be a valid URI", cause: err}
			case !u.IsAbs():
				return &failure{reason: "value must be absolute"}
			}
			return nil
		}
	case r.GetUriRef():
		return caused(func(s string) error { _, err := url.Parse(s); return err }, "value must be a valid URI")
	case r.GetUuid():
		return caused(checkUUID, "value must be a valid UUID")
	}
	return nil
}

// checkHostname is PGV's hostname rule: at most 253 bytes, dot-separated
// labels of 1 to 63 letters, digits and inner hyphens.
func checkHostname(host string) error {
	s := strings.ToLower(strings.TrimSuffix(host, "."))
	if len(host) > 253 {
		return errors.New("hostname cannot exceed 253 characters")
	}
	for _, part := range strings.Split(s, ".") {
		if l := len(part); l == 0 || l > 63 {
			return errors.New("hostname part must be non-empty and cannot exceed 63 characters")
		}
		if part[0] == '-' {
			return errors.New("hostname parts cannot begin with hyphens")
		}
		if part[len(part)-1] == '-' {
			return errors.New("hostname parts cannot end with hyphens")
		}
		for _, c := range part {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return fmt.Errorf("hostname parts can only contain alphanumeric characters or hyphens, got %q", string(c))
			}
		}
	}
	return nil
}

// checkEmail is PGV's email rule: an RFC 5322 address whose address part
// fits in 254 bytes, its local part in 64, and whose domain is a hostname.
func checkEmail(addr string) error {
	a, err := mail.ParseAddress(addr)
	if err != nil {
		return err
	}
	if len(a.Address) > 254 {
		return errors.New("email addresses cannot exceed 254 characters")
	}
	local, domain, _ := strings.Cut(a.Address, "@")
	if len(local) > 64 {
		return errors.New("email address local phrase cannot exceed 64 characters")
	}
	return checkHostname(domain)
}

func checkUUID(s string) error {
	if !uuidPattern().MatchString(s) {
		return errors.New("invalid uuid format")
	}
	return nil
}

// bytesTests is the bytes rules in the generated code's order: length,
// prefix, suffix, contains, in/not_in, const, the IP formats, pattern.
func bytesTests(r *validate.BytesRules) []test {
	if r == nil {
		return nil
	}
	var tests []test
	add := func(broken func(b []byte) bool, reason string) {
		f := &failure{reason: reason}
		tests = append(tests, func(v protoreflect.Value) *failure { return failIf(broken(v.Bytes()), f) })
	}
	octets := func(s string) int { return len(s) }
	for _, t := range lengthTests(octets, r.Len, r.MinLen, r.MaxLen, "bytes") {
		tests = append(tests, func(v protoreflect.Value) *failure {
			return t(protoreflect.ValueOfString(string(v.Bytes())))
		})
	}
	if r.Prefix != nil {
		p := r.GetPrefix()
		add(func(b []byte) bool { return !bytes.HasPrefix(b, p) }, "value does not have prefix "+byteString(p))
	}
	if r.Suffix != nil {
		x := r.GetSuffix()
		add(func(b []byte) bool { return !bytes.HasSuffix(b, x) }, "value does not have suffix "+byteString(x))
	}
	if r.Contains != nil {
		x := r.GetContains()
		add(func(b []byte) bool { return !bytes.Contains(b, x) }, "value does not contain "+byteString(x))
	}
	if t := bytesInTest(r.GetIn(), r.GetNotIn()); t != nil {
		tests = append(tests, t)
	}
	if len(r.GetConst()) > 0 {
		want := r.GetConst()
		add(func(b []byte) bool { return !bytes.Equal(b, want) }, fmt.Sprintf("value must equal %v", want))
	}
	switch {
	case r.GetIp():
		add(func(b []byte) bool { return net.IP(b).To16() == nil }, "value must be a valid IP address")
	case r.GetIpv4():
		add(func(b []byte) bool { return net.IP(b).To4() == nil }, "value must be a valid IPv4 address")
	case r.GetIpv6():
		add(func(b []byte) bool { ip := net.IP(b); return ip.To16() == nil || ip.To4() != nil }, "value must be a valid IPv6 address")
	}
	if r.Pattern != nil {
		tests = append(tests, patternTest(r.GetPattern(), func(re *regexp.Regexp, v protoreflect.Value) bool { return re.Match(v.Bytes()) }))
	}
	return tests
}

func bytesInTest(in, notIn [][]byte) test {
	strs := func(l [][]byte) []string {
		out := make([]string, len(l))
		for i, b := range l {
			out[i] = string(b)
		}
		return out
	}
	t := inTest(strs(in), strs(notIn), fmt.Sprint("value must be in list ", in), fmt.Sprint("value must not be in list ", notIn))
	if t == nil {
		return nil
	}
	return func(v protoreflect.Value) *failure { return t(string(v.Bytes())) }
}

// byteString writes bytes as PGV's messages do: "\x41\x42".
func byteString(b []byte) string {
	var s strings.Builder
	s.WriteByte('"')
	for _, c := range b {
		fmt.Fprintf(&s, `\x%X`, c)
	}
	s.WriteByte('"')
	return s.String()
}

func compileAny(md protoreflect.MessageDescriptor, r *validate.AnyRules) valueCheck {
	c := &anyCheck{required: r.GetRequired(), typeURL: md.Fields().ByNumber(1)}
	if c.typeURL == nil {
		return nil
	}
	toSet := func(l []string) map[string]bool {
		m := make(map[string]bool, len(l))
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	if len(r.GetIn()) > 0 {
		c.in, c.inMsg = toSet(r.GetIn()), fmt.Sprint("type URL must be in list ", r.GetIn())
	} else if len(r.GetNotIn()) > 0 {
		c.notIn, c.notInMsg = toSet(r.GetNotIn()), fmt.Sprint("type URL must not be in list ", r.GetNotIn())
	}
	if !c.required && c.in == nil && c.notIn == nil {
		return nil
	}
	return c
}

// secondsNanos reads a Duration or Timestamp message's two fields.
func secondsNanos(m protoreflect.Message) (int64, int32) {
	fields := m.Descriptor().Fields()
	var s int64
	var n int32
	if fd := fields.ByNumber(1); fd != nil && fd.Kind() == protoreflect.Int64Kind {
		s = m.Get(fd).Int()
	}
	if fd := fields.ByNumber(2); fd != nil && fd.Kind() == protoreflect.Int32Kind {
		n = int32(m.Get(fd).Int())
	}
	return s, n
}

func readDuration(m protoreflect.Message) (timeValue, error) {
	s, n := secondsNanos(m)
	d := &durationpb.Duration{Seconds: s, Nanos: n}
	return timeValue{d: d.AsDuration()}, d.CheckValid()
}

func readTimestamp(m protoreflect.Message) (timeValue, error) {
	s, n := secondsNanos(m)
	t := &timestamppb.Timestamp{Seconds: s, Nanos: n}
	return timeValue{t: t.AsTime()}, t.CheckValid()
}

// compileDuration is the duration rules: required, then const, the range
// and in/not_in on the duration, which must be valid when any is given.
func compileDuration(r *validate.DurationRules) valueCheck {
	if r == nil {
		return nil
	}
	dur := func(d *durationpb.Duration) *time.Duration {
		if d == nil {
			return nil
		}
		x := d.AsDuration()
		return &x
	}
	var tests []func(timeValue) *failure
	if want := dur(r.GetConst()); want != nil {
		f := &failure{reason: "value must equal " + want.String()}
		tests = append(tests, func(v timeValue) *failure { return failIf(v.d != *want, f) })
	}
	if rt := rangeTest(dur(r.GetLt()), dur(r.GetLte()), dur(r.GetGt()), dur(r.GetGte()), ordered[time.Duration]); rt != nil {
		tests = append(tests, func(v timeValue) *failure { return rt(v.d) })
	}
	durs := func(l []*durationpb.Duration) []time.Duration {
		out := make([]time.Duration, len(l))
		for i, d := range l {
			out[i] = d.AsDuration()
		}
		return out
	}
	// The reasons print the rules' Duration messages as fmt does.
	in, notIn := r.GetIn(), r.GetNotIn()
	if t := inTest(durs(in), durs(notIn), fmt.Sprint("value must be in list ", in), fmt.Sprint("value must not be in list ", notIn)); t != nil {
		tests = append(tests, func(v timeValue) *failure { return t(v.d) })
	}
	if !r.GetRequired() && tests == nil {
		return nil
	}
	return &timeCheck{required: r.GetRequired(), invalid: "value is not a valid duration", read: readDuration, tests: tests}
}

// compileTimestamp is the timestamp rules: required, then const, the
// range, or else lt_now, gt_now and within, on a timestamp that must be
// valid when any is given.
func compileTimestamp(r *validate.TimestampRules) valueCheck {
	if r == nil {
		return nil
	}
	at := func(t *timestamppb.Timestamp) *time.Time {
		if t == nil {
			return nil
		}
		x := t.AsTime()
		return &x
	}
	var tests []func(timeValue) *failure
	if want := at(r.GetConst()); want != nil {
		f := &failure{reason: "value must equal " + want.String()}
		tests = append(tests, func(v timeValue) *failure { return failIf(!v.t.Equal(*want), f) })
	}
	// Time.Sub saturates but keeps the sign, so comparing the times
	// decides as the generated code's ts.Sub(bound) does.
	byTime := func(a, b time.Time) (int, bool) { return a.Compare(b), true }
	if rt := rangeTest(at(r.GetLt()), at(r.GetLte()), at(r.GetGt()), at(r.GetGte()), byTime); rt != nil {
		tests = append(tests, func(v timeValue) *failure { return rt(v.t) })
	} else if t := nowTest(r); t != nil {
		tests = append(tests, t)
	}
	if !r.GetRequired() && tests == nil {
		return nil
	}
	return &timeCheck{required: r.GetRequired(), invalid: "value is not a valid timestamp", read: readTimestamp, tests: tests}
}

// nowTest is lt_now, gt_now and within, which compare with the time of the
// check.
func nowTest(r *validate.TimestampRules) func(timeValue) *failure {
	var within time.Duration
	if r.Within != nil {
		within = r.Within.AsDuration()
	}
	switch {
	case r.GetLtNow() && r.Within != nil:
		f := &failure{reason: "value must be less than now within " + within.String()}
		return func(v timeValue) *failure {
			now := time.Now()
			return failIf(v.t.Sub(now) >= 0 || v.t.Sub(now.Add(-within)) < 0, f)
		}
	case r.GetLtNow():
		f := &failure{reason: "value must be less than now"}
		return func(v timeValue) *failure { return failIf(time.Until(v.t) >= 0, f) }
	case r.GetGtNow() && r.Within != nil:
		f := &failure{reason: "value must be greater than now within " + within.String()}
		return func(v timeValue) *failure {
			now := time.Now()
			return failIf(v.t.Sub(now) <= 0 || v.t.Sub(now.Add(within)) > 0, f)
		}
	case r.GetGtNow():
		f := &failure{reason: "value must be greater than now"}
		return func(v timeValue) *failure { return failIf(time.Until(v.t) <= 0, f) }
	case r.Within != nil:
		f := &failure{reason: "value must be within " + within.String() + " of now"}
		return func(v timeValue) *failure {
			now := time.Now()
			return failIf(v.t.Sub(now.Add(within)) >= 0 || v.t.Sub(now.Add(-within)) <= 0, f)
		}
	}
	return nil
}
