package pgv

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	validate "github.com/envoyproxy/protoc-gen-validate/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	_ "github.com/proxylint/proxylint/parsers/envoy/internal/envoyapi" // the oracle: the generated ValidateAll methods
)

// The generated ValidateAll methods are the oracle: validateAll must say
// exactly what they say, on generated messages and on dynamic messages
// whose descriptors were rebuilt from descriptor protos.

type validatorAll interface{ ValidateAll() error }

// The interfaces the Envoy loader reads violations through.
type (
	validationError interface {
		Field() string
		Reason() string
		Cause() error
		Key() bool
	}
	multiError interface {
		AllErrors() []error
	}
)

// describe writes an error as violations() reads it: every violation's
// interface methods, causes included, besides the text.
func describe(err error) string {
	if err == nil {
		return "<nil>"
	}
	var b strings.Builder
	var walk func(err error, depth int)
	walk = func(err error, depth int) {
		indent := strings.Repeat("  ", depth)
		var me multiError
		if errors.As(err, &me) {
			fmt.Fprintf(&b, "%smulti %q\n", indent, err.Error())
			for _, e := range me.AllErrors() {
				walk(e, depth+1)
			}
			return
		}
		ve, ok := err.(interface {
			validationError
			ErrorName() string
		})
		if !ok {
			fmt.Fprintf(&b, "%splain %q\n", indent, err.Error())
			return
		}
		fmt.Fprintf(&b, "%s%s field=%q reason=%q key=%v text=%q\n", indent, ve.ErrorName(), ve.Field(), ve.Reason(), ve.Key(), err.Error())
		if c := ve.Cause(); c != nil {
			walk(c, depth+1)
		}
	}
	walk(err, 0)
	return b.String()
}

// rebuilt is every linked file again, as descriptors built from their
// descriptor protos with the validate extensions left as unknown bytes,
// the way descriptors read from a serialized set arrive.
var rebuilt = sync.OnceValues(func() (*protoregistry.Files, error) {
	set := &descriptorpb.FileDescriptorSet{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
		return true
	})
	data, err := proto.Marshal(set)
	if err != nil {
		return nil, err
	}
	bare := &descriptorpb.FileDescriptorSet{}
	if err := (proto.UnmarshalOptions{Resolver: new(protoregistry.Types)}).Unmarshal(data, bare); err != nil {
		return nil, err
	}
	return protodesc.NewFiles(bare)
})

// asDynamic copies m into a dynamic message of the rebuilt descriptor.
func asDynamic(t testing.TB, m proto.Message) protoreflect.Message {
	t.Helper()
	files, err := rebuilt()
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName(m.ProtoReflect().Descriptor().FullName())
	if err != nil {
		t.Fatal(err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		t.Fatalf("%s is not a message", d.FullName())
	}
	data, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dm := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(data, dm); err != nil {
		t.Fatal(err)
	}
	return dm
}

// sameAsOracle compares validateAll with ValidateAll on m and on its
// dynamic copy; it returns the oracle's error.
func sameAsOracle(t *testing.T, what string, m proto.Message) error {
	t.Helper()
	v, ok := m.(validatorAll)
	if !ok {
		if err := ValidateAll(m.ProtoReflect()); err != nil {
			t.Errorf("%s: %T has no ValidateAll, but validateAll says %v", what, m, err)
		}
		return nil
	}
	want := v.ValidateAll()
	wantText := describe(want)
	differs := func(how string, got error) {
		if describe(got) == wantText {
			return
		}
		if t.Failed() && differences.Add(1) > 20 {
			return // enough to go on
		}
		t.Errorf("%s (%T%s):\nValidateAll: %v\nvalidateAll: %v", what, m, how, want, got)
		if want != nil && got != nil && want.Error() == got.Error() {
			t.Errorf("same text, other structure:\n%s\n%s", wantText, describe(got))
		}
	}
	differs("", ValidateAll(m.ProtoReflect()))
	differs(", dynamic", ValidateAll(asDynamic(t, m)))
	return want
}

// differences counts reported differences, to stop after the first few.
var differences atomic.Int32

// TestGoNamesMatchGeneratedCode checks the names validateAll writes and
// which types it validates against the generated Go types.
func TestGoNamesMatchGeneratedCode(t *testing.T) {
	var types, fields int
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		m := mt.New().Interface()
		_, has := m.(validatorAll)
		if has != hasValidator(md) {
			t.Errorf("%s: generated ValidateAll %v, hasValidator %v", md.FullName(), has, hasValidator(md))
		}
		if !has {
			return true
		}
		types++
		typ := reflect.TypeOf(m).Elem()
		if typ.Name() != goTypeName(md) {
			t.Errorf("%s: Go type %s, goTypeName %s", md.FullName(), typ.Name(), goTypeName(md))
		}
		for i := 0; i < md.Fields().Len(); i++ {
			fd := md.Fields().Get(i)
			name := goCamelCase(string(fd.Name()))
			if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
				name = goCamelCase(string(od.Name()))
			}
			if _, ok := typ.FieldByName(name); !ok {
				t.Errorf("%s: no Go field %s", fd.FullName(), name)
			}
			fields++
		}
		return true
	})
	t.Logf("%d generated types with ValidateAll, %d fields", types, fields)
}

// fieldRulesOf reads a field's rules as the generated code saw them.
func fieldRulesOf(fd protoreflect.FieldDescriptor) *validate.FieldRules {
	r, _ := extensionOf[*validate.FieldRules](fd.Options(), validate.E_Rules)
	return r
}

// ruleKinds lists the rules set in a rules message, as "string.min_len"
// or "repeated.items.enum.defined_only".
func ruleKinds(prefix string, m protoreflect.Message, out map[string]bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := strings.TrimPrefix(prefix+"."+string(fd.Name()), ".")
		if fd.Message() != nil && !fd.IsList() && fd.Message().FullName().Parent() == "validate" {
			ruleKinds(name, v.Message(), out)
			return true
		}
		out[name] = true
		return true
	})
}

// linkedRuleKinds lists every rule kind in the linked descriptors, with
// how many fields use it, and the message and oneof options.
func linkedRuleKinds() map[string]int {
	out := map[string]int{}
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		if d, _ := extensionOf[bool](md.Options(), validate.E_Disabled); d {
			out["message option disabled"]++
		}
		if d, _ := extensionOf[bool](md.Options(), validate.E_Ignored); d {
			out["message option ignored"]++
		}
		for i := 0; i < md.Oneofs().Len(); i++ {
			if r, _ := extensionOf[bool](md.Oneofs().Get(i).Options(), validate.E_Required); r {
				out["oneof required"]++
			}
		}
		for i := 0; i < md.Fields().Len(); i++ {
			if r := fieldRulesOf(md.Fields().Get(i)); r != nil {
				kinds := map[string]bool{}
				ruleKinds("", r.ProtoReflect(), kinds)
				for k := range kinds {
					out[k]++
				}
			}
		}
		return true
	})
	return out
}

// valueMaker builds candidate values for the systematic test: values on
// both sides of every bound the rules name, and the usual suspects.
type valueMaker struct {
	depth int
}

var candidateStrings = []string{
	"", "a", "ab", "Ab-c_d", "x y", "a\x00b", "a\nb", "a\rb", "tab\there", "\x7f", ":authority", ":path",
	"content-type", "héllo", "日本", "example.com", "example.com.", "-bad.com", "bad-.com", "exa_mple.com",
	strings.Repeat("a", 64) + ".com", "a..b", "1.2.3.4", "::1", "2001:db8::1", "::ffff:1.2.3.4",
	"http://example.com/x", "/rel/path", "%zz", "http://[::1", "user@example.com", "Name <user@example.com>",
	"not an email", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400", "/",
	"x.mmdb", "*", "GET", "0", "1",
}

func (vm valueMaker) strings(r *validate.StringRules) []string {
	out := append([]string(nil), candidateStrings...)
	if r == nil {
		return out
	}
	out = append(out, r.GetIn()...)
	out = append(out, r.GetNotIn()...)
	if r.Const != nil {
		out = append(out, r.GetConst(), r.GetConst()+"x")
	}
	for _, p := range []*string{r.Prefix, r.Suffix, r.Contains, r.NotContains} {
		if p != nil {
			out = append(out, *p, *p+"x", "x"+*p, "x"+*p+"x")
		}
	}
	for _, n := range []*uint64{r.Len, r.MinLen, r.MaxLen, r.LenBytes, r.MinBytes, r.MaxBytes} {
		if n != nil && *n < 300 {
			for _, l := range []int{int(*n) - 1, int(*n), int(*n) + 1} {
				if l >= 0 {
					out = append(out, strings.Repeat("a", l), strings.Repeat("é", l))
				}
			}
		}
	}
	return out
}

// bounds reads the numeric bounds and lists of a numeric rules message.
func bounds(r protoreflect.Message) []float64 {
	var out []float64
	r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		add := func(v protoreflect.Value) {
			switch fd.Kind() {
			case protoreflect.FloatKind, protoreflect.DoubleKind:
				out = append(out, v.Float())
			case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
				out = append(out, float64(v.Uint()))
			case protoreflect.BoolKind:
			default:
				out = append(out, float64(v.Int()))
			}
		}
		if fd.IsList() {
			for i := 0; i < v.List().Len(); i++ {
				add(v.List().Get(i))
			}
		} else {
			add(v)
		}
		return true
	})
	return out
}

func (vm valueMaker) numbers(e protoreflect.FieldDescriptor, r *validate.FieldRules) []protoreflect.Value {
	nums := []float64{0, 1, -1, 2, 100, 1e9, -1e9}
	if set := r.ProtoReflect().WhichOneof(r.ProtoReflect().Descriptor().Oneofs().ByName("type")); set != nil && set.Message() != nil {
		for _, b := range bounds(r.ProtoReflect().Get(set).Message()) {
			nums = append(nums, b-1, b, b+1, b-0.5, b+0.5)
		}
	}
	var out []protoreflect.Value
	for _, n := range nums {
		switch e.Kind() {
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
			out = append(out, protoreflect.ValueOfInt32(int32(n)))
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			out = append(out, protoreflect.ValueOfInt64(int64(n)))
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			if n >= 0 {
				out = append(out, protoreflect.ValueOfUint32(uint32(n)))
			}
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			if n >= 0 {
				out = append(out, protoreflect.ValueOfUint64(uint64(n)))
			}
		case protoreflect.FloatKind:
			out = append(out, protoreflect.ValueOfFloat32(float32(n)))
		case protoreflect.DoubleKind:
			out = append(out, protoreflect.ValueOfFloat64(n))
		}
	}
	switch e.Kind() {
	case protoreflect.FloatKind:
		out = append(out, protoreflect.ValueOfFloat32(float32(math.NaN())), protoreflect.ValueOfFloat32(float32(math.Inf(1))))
	case protoreflect.DoubleKind:
		out = append(out, protoreflect.ValueOfFloat64(math.NaN()), protoreflect.ValueOfFloat64(math.Inf(-1)))
	case protoreflect.Uint32Kind:
		out = append(out, protoreflect.ValueOfUint32(math.MaxUint32))
	case protoreflect.Int64Kind:
		out = append(out, protoreflect.ValueOfInt64(math.MinInt64))
	}
	return out
}

// values lists candidates for one value of e's type under the rules r.
func (vm valueMaker) values(e protoreflect.FieldDescriptor, r *validate.FieldRules) []protoreflect.Value {
	var out []protoreflect.Value
	switch e.Kind() {
	case protoreflect.StringKind:
		for _, s := range vm.strings(r.GetString_()) {
			out = append(out, protoreflect.ValueOfString(s))
		}
	case protoreflect.BytesKind:
		lens := []int{0, 1, 3, 4, 16}
		for _, n := range []uint64{r.GetBytes().GetLen(), r.GetBytes().GetMinLen(), r.GetBytes().GetMaxLen()} {
			if n > 0 && n < 1<<16 {
				lens = append(lens, int(n)-1, int(n), int(n)+1)
			}
		}
		for _, n := range lens {
			out = append(out, protoreflect.ValueOfBytes([]byte(strings.Repeat("\x01", n))))
		}
	case protoreflect.BoolKind:
		out = append(out, protoreflect.ValueOfBool(false), protoreflect.ValueOfBool(true))
	case protoreflect.EnumKind:
		nums := []int32{0, 1, 2, 99999}
		nums = append(nums, r.GetEnum().GetIn()...)
		nums = append(nums, r.GetEnum().GetNotIn()...)
		for i := 0; i < e.Enum().Values().Len() && i < 6; i++ {
			nums = append(nums, int32(e.Enum().Values().Get(i).Number()))
		}
		for _, n := range nums {
			out = append(out, protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)))
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		for _, m := range vm.messages(e.Message(), r) {
			out = append(out, protoreflect.ValueOfMessage(m))
		}
	default:
		out = vm.numbers(e, r)
	}
	return out
}

// messages lists candidate messages of type md: the special cases of the
// well-known types, an empty message, and one with every field filled.
func (vm valueMaker) messages(md protoreflect.MessageDescriptor, r *validate.FieldRules) []protoreflect.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return nil
	}
	newMsg := func() protoreflect.Message { return mt.New() }
	var out []protoreflect.Message
	switch md.FullName() {
	case "google.protobuf.Duration", "google.protobuf.Timestamp":
		pairs := [][2]int64{{0, 0}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, -1}, {315576000001, 0}, {0, 2e9}, {5, 0}, {3600, 0}, {-62135596801, 0}}
		for _, d := range []interface{ GetSeconds() int64 }{r.GetDuration().GetGt(), r.GetDuration().GetGte(), r.GetDuration().GetLt(), r.GetDuration().GetLte()} {
			if x, ok := d.(interface {
				GetSeconds() int64
				GetNanos() int32
			}); ok && x.GetSeconds()|int64(x.GetNanos()) != 0 {
				s, n := x.GetSeconds(), int64(x.GetNanos())
				pairs = append(pairs, [2]int64{s, n}, [2]int64{s, n - 1}, [2]int64{s, n + 1})
			}
		}
		for _, p := range pairs {
			m := newMsg()
			m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfInt64(p[0]))
			m.Set(md.Fields().ByNumber(2), protoreflect.ValueOfInt32(int32(p[1])))
			out = append(out, m)
		}
		return out
	case "google.protobuf.Any":
		urls := []string{"", "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "x"}
		urls = append(urls, r.GetAny().GetIn()...)
		urls = append(urls, r.GetAny().GetNotIn()...)
		for _, u := range urls {
			m := newMsg()
			m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfString(u))
			out = append(out, m)
		}
		return out
	}
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") && strings.HasSuffix(string(md.Name()), "Value") && md.Fields().Len() == 1 {
		value := md.Fields().ByNumber(1)
		for _, v := range vm.values(value, r) {
			m := newMsg()
			m.Set(value, v)
			out = append(out, m)
		}
		return append(out, newMsg())
	}
	out = append(out, newMsg())
	if vm.depth < 2 && hasValidator(md) {
		out = append(out, valueMaker{depth: vm.depth + 1}.fill(mt))
	}
	return out
}

// fill sets every field of a new message (and the first member of each
// oneof) to a candidate value, so nested rules are met or broken deeper.
func (vm valueMaker) fill(mt protoreflect.MessageType) protoreflect.Message {
	m := mt.New()
	md := mt.Descriptor()
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		if od := fd.ContainingOneof(); od != nil && od.Fields().Get(0) != fd {
			continue
		}
		for _, v := range vm.fieldValues(m, fd) {
			m.Set(fd, v)
			break
		}
	}
	return m
}

// fieldValues lists candidate values for a field of m: a value for a
// singular field; lists of none, one, two equal and several items; maps
// with empty and non-empty keys.
func (vm valueMaker) fieldValues(m protoreflect.Message, fd protoreflect.FieldDescriptor) []protoreflect.Value {
	r := fieldRulesOf(fd)
	switch {
	case fd.IsList():
		items := vm.values(fd, r.GetRepeated().GetItems())
		lists := [][]protoreflect.Value{nil}
		for i, it := range items {
			if i < 8 || len(items)-i < 3 {
				lists = append(lists, []protoreflect.Value{it})
			}
		}
		if len(items) > 0 {
			lists = append(lists, []protoreflect.Value{items[0], items[0]}, items)
		}
		if len(items) > 1 {
			lists = append(lists, []protoreflect.Value{items[1], items[1], items[0]})
		}
		var out []protoreflect.Value
		for _, l := range lists {
			v := m.NewField(fd)
			for _, it := range l {
				v.List().Append(it)
			}
			out = append(out, v)
		}
		return out
	case fd.IsMap():
		keys := vm.values(fd.MapKey(), r.GetMap().GetKeys())
		vals := vm.values(fd.MapValue(), r.GetMap().GetValues())
		var out []protoreflect.Value
		out = append(out, m.NewField(fd))
		for i, k := range keys {
			if i > 6 && len(keys)-i > 2 {
				continue
			}
			for j, val := range vals {
				if j > 6 && len(vals)-j > 2 {
					continue
				}
				v := m.NewField(fd)
				v.Map().Set(k.MapKey(), val)
				out = append(out, v)
			}
		}
		if len(keys) > 1 && len(vals) > 0 {
			v := m.NewField(fd)
			for i, k := range keys {
				v.Map().Set(k.MapKey(), vals[i%len(vals)])
			}
			out = append(out, v)
		}
		return out
	}
	return vm.values(fd, r)
}

// TestValidateAllMatchesOracleOnBrokenRules builds, for every linked type
// with a ValidateAll, messages that break and keep each rule of each
// field, and compares both validators on each.
func TestValidateAllMatchesOracleOnBrokenRules(t *testing.T) {
	var types, fields, cases, violated int
	reasons := map[string]bool{}
	exercised := map[string]bool{}
	digits := regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?`)
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		if _, ok := mt.New().Interface().(validatorAll); !ok {
			return true
		}
		types++
		_ = sameAsOracle(t, string(md.FullName())+" empty", mt.New().Interface())
		_ = sameAsOracle(t, string(md.FullName())+" filled", valueMaker{}.fill(mt).Interface())
		for i := 0; i < md.Fields().Len(); i++ {
			fd := md.Fields().Get(i)
			r := fieldRulesOf(fd)
			if r == nil && fd.Message() == nil {
				continue
			}
			fields++
			var broke, kept bool
			values := valueMaker{}.fieldValues(mt.New(), fd)
			if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
				values = append(values, protoreflect.Value{}) // left unset
			}
			for _, v := range values {
				m := mt.New()
				if v.IsValid() {
					m.Set(fd, v)
				}
				cases++
				err := sameAsOracle(t, fmt.Sprintf("%s = %v", fd.FullName(), v), m.Interface())
				if err != nil {
					violated++
					collectReasons(err, digits, reasons)
				}
				if mentions(err, md, fd) {
					broke = true
				} else {
					kept = true
				}
			}
			if r != nil && broke && kept {
				kinds := map[string]bool{}
				ruleKinds("", r.ProtoReflect(), kinds)
				for k := range kinds {
					exercised[k] = true
				}
			}
		}
		return true
	})
	all := linkedRuleKinds()
	var kinds, missing []string
	for k, n := range all {
		kinds = append(kinds, fmt.Sprintf("%s (%d)", k, n))
		if !exercised[k] && !strings.Contains(k, " ") {
			missing = append(missing, k)
		}
	}
	sort.Strings(kinds)
	sort.Strings(missing)
	var rs []string
	for r := range reasons {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	t.Logf("%d types, %d fields, %d messages compared, %d with violations", types, fields, cases, violated)
	t.Logf("rule kinds in the linked descriptors: %s", strings.Join(kinds, ", "))
	t.Logf("rule kinds never both broken and kept: %v", missing)
	t.Logf("%d distinct reasons seen:\n%s", len(rs), strings.Join(rs, "\n"))
	if cases == 0 || violated == 0 {
		t.Error("nothing compared")
	}
}

// mentions reports whether err has a violation of fd's (at its top level).
func mentions(err error, md protoreflect.MessageDescriptor, fd protoreflect.FieldDescriptor) bool {
	if err == nil {
		return false
	}
	name := goTypeName(md) + "." + goCamelCase(string(fd.Name()))
	text := err.Error()
	return strings.Contains(text, name+":") || strings.Contains(text, name+"[")
}

// collectReasons notes every reason in an error tree, numbers masked.
func collectReasons(err error, digits *regexp.Regexp, out map[string]bool) {
	var me multiError
	if errors.As(err, &me) {
		for _, e := range me.AllErrors() {
			collectReasons(e, digits, out)
		}
		return
	}
	var ve validationError
	if errors.As(err, &ve) {
		out[digits.ReplaceAllString(ve.Reason(), "N")] = true
		if c := ve.Cause(); c != nil && strings.HasPrefix(ve.Reason(), "embedded") {
			collectReasons(c, digits, out)
		}
	}
}

// unlinkedRules is a message type with the rule kinds that no linked
// Envoy type uses, so no generated code can serve as the oracle; the
// expected texts follow PGV's Go templates.
func unlinkedRules(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, typeName string, rules *validate.FieldRules) *descriptorpb.FieldDescriptorProto {
		opts := &descriptorpb.FieldOptions{}
		proto.SetExtension(opts, validate.E_Rules, rules)
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Options: opts}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		return f
	}
	str := func(name string, n int32, r *validate.StringRules) *descriptorpb.FieldDescriptorProto {
		return field(name, n, descriptorpb.FieldDescriptorProto_TYPE_STRING, "", &validate.FieldRules{Type: &validate.FieldRules_String_{String_: r}})
	}
	ts := func(name string, n int32, r *validate.TimestampRules) *descriptorpb.FieldDescriptorProto {
		return field(name, n, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, ".google.protobuf.Timestamp", &validate.FieldRules{Type: &validate.FieldRules_Timestamp{Timestamp: r}})
	}
	file := &descriptorpb.FileDescriptorProto{
		Name: proto.String("proxylint/pgvtest.proto"), Package: proto.String("envoy.pgvtest"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/timestamp.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Rules"), Field: []*descriptorpb.FieldDescriptorProto{
			str("host", 1, &validate.StringRules{WellKnown: &validate.StringRules_Hostname{Hostname: true}}),
			str("ip", 2, &validate.StringRules{WellKnown: &validate.StringRules_Ip{Ip: true}}),
			str("ipv4", 3, &validate.StringRules{WellKnown: &validate.StringRules_Ipv4{Ipv4: true}}),
			str("ipv6", 4, &validate.StringRules{WellKnown: &validate.StringRules_Ipv6{Ipv6: true}}),
			str("email", 5, &validate.StringRules{WellKnown: &validate.StringRules_Email{Email: true}}),
			str("uri", 6, &validate.StringRules{WellKnown: &validate.StringRules_Uri{Uri: true}}),
			str("uri_ref", 7, &validate.StringRules{WellKnown: &validate.StringRules_UriRef{UriRef: true}}),
			str("uuid", 8, &validate.StringRules{WellKnown: &validate.StringRules_Uuid{Uuid: true}}),
			str("address", 9, &validate.StringRules{WellKnown: &validate.StringRules_Address{Address: true}}),
			str("text", 10, &validate.StringRules{Const: proto.String("pa-b-s"), Prefix: proto.String("pa"), Suffix: proto.String("s"),
				Contains: proto.String("-b-"), NotContains: proto.String("zz"), Len: proto.Uint64(6)}),
			field("num", 11, descriptorpb.FieldDescriptorProto_TYPE_INT32, "", &validate.FieldRules{Type: &validate.FieldRules_Int32{Int32: &validate.Int32Rules{In: []int32{1, 2}}}}),
			ts("past", 12, &validate.TimestampRules{LtNow: proto.Bool(true)}),
			ts("after", 13, &validate.TimestampRules{Gt: &timestamppb.Timestamp{Seconds: 10}}),
		}}},
	}
	fd, err := protodesc.NewFile(file, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().Get(0)
}

func TestValidateAllRulesNoLinkedTypeUses(t *testing.T) {
	md := unlinkedRules(t)
	good := map[string]any{
		"host": "a.example.com", "ip": "1.2.3.4", "ipv4": "1.2.3.4", "ipv6": "::1", "email": "a@b.com",
		"uri": "http://x/y", "uri_ref": "/y", "uuid": "123e4567-e89b-12d3-a456-426614174000", "address": "::1",
		"text": "pa-b-s", "num": int32(2), "past": int64(1), "after": int64(11),
	}
	set := func(m protoreflect.Message, name string, v any) {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if s, ok := v.(int64); ok {
			ts := m.NewField(fd).Message()
			ts.Set(ts.Descriptor().Fields().ByNumber(1), protoreflect.ValueOfInt64(s))
			m.Set(fd, protoreflect.ValueOfMessage(ts))
			return
		}
		m.Set(fd, protoreflect.ValueOf(v))
	}
	tests := []struct {
		field string
		value any
		want  string
	}{
		{"host", "-a.com", "invalid Rules.Host: value must be a valid hostname | caused by: hostname parts cannot begin with hyphens"},
		{"host", "a_b.com", `invalid Rules.Host: value must be a valid hostname | caused by: hostname parts can only contain alphanumeric characters or hyphens, got "_"`},
		{"ip", "1.2.3", "invalid Rules.Ip: value must be a valid IP address"},
		{"ipv4", "::1", "invalid Rules.Ipv4: value must be a valid IPv4 address"},
		{"ipv6", "1.2.3.4", "invalid Rules.Ipv6: value must be a valid IPv6 address"},
		{"email", "nobody", "invalid Rules.Email: value must be a valid email address | caused by: mail: missing '@' or angle-addr"},
		{"uri", "/relative", "invalid Rules.Uri: value must be absolute"},
		{"uri_ref", "%zz", `invalid Rules.UriRef: value must be a valid URI | caused by: parse "%zz": invalid URL escape "%zz"`},
		{"uuid", "123", "invalid Rules.Uuid: value must be a valid UUID | caused by: invalid uuid format"},
		{"address", "a_b", "invalid Rules.Address: value must be a valid hostname, or ip address"},
		{"text", "xx-b-", "invalid Rules.Text: value must equal pa-b-s; invalid Rules.Text: value length must be 6 runes; " +
			`invalid Rules.Text: value does not have prefix "pa"; invalid Rules.Text: value does not have suffix "s"`},
		{"text", "pazz", "invalid Rules.Text: value must equal pa-b-s; invalid Rules.Text: value length must be 6 runes; " +
			`invalid Rules.Text: value does not have suffix "s"; invalid Rules.Text: value does not contain substring "-b-"; invalid Rules.Text: value contains substring "zz"`},
		{"num", int32(3), "invalid Rules.Num: value must be in list [1 2]"},
		{"past", int64(1 << 33), "invalid Rules.Past: value must be less than now"},
		{"after", int64(10), "invalid Rules.After: value must be greater than 1970-01-01 00:00:10 +0000 UTC"},
	}
	m := dynamicpb.NewMessage(md)
	for name, v := range good {
		set(m, name, v)
	}
	if err := ValidateAll(m); err != nil {
		t.Fatalf("valid message: %v", err)
	}
	for _, tc := range tests {
		m := dynamicpb.NewMessage(md)
		for name, v := range good {
			set(m, name, v)
		}
		set(m, tc.field, tc.value)
		got := fmt.Sprint(ValidateAll(m))
		if got != tc.want {
			t.Errorf("%s = %v:\n got %s\nwant %s", tc.field, tc.value, got, tc.want)
		}
	}
}
