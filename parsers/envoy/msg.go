package envoy

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/model"
)

// The messages of Envoy's API are read through reflection, by the proto
// names of their fields, so that the loader works on messages built from
// descriptors and needs none of the generated Go types. msg reads them the
// way the generated getters do: an unset field reads as its zero value, and
// an absent message as an empty one.
//
// A name the message's type lacks is a mistake of the loader, which no
// compiler sees (TestMsgNamesAreInTheSchema checks the names the code
// writes against the schema, not which message each is asked of): the
// lookup returns an error (field, oneofField), and an accessor that meets
// one reads the zero value and records the error in the lookups of the
// read it belongs to, which the loader reports as an internal error of
// that file instead of crashing the run.

// Full names of the messages the loader reads.
const (
	nameAny                 protoreflect.FullName = "google.protobuf.Any"
	nameBootstrap           protoreflect.FullName = "envoy.config.bootstrap.v3.Bootstrap"
	nameListener            protoreflect.FullName = "envoy.config.listener.v3.Listener"
	nameCluster             protoreflect.FullName = "envoy.config.cluster.v3.Cluster"
	nameRouteConfiguration  protoreflect.FullName = "envoy.config.route.v3.RouteConfiguration"
	nameVirtualHost         protoreflect.FullName = "envoy.config.route.v3.VirtualHost"
	nameClusterLoadAssign   protoreflect.FullName = "envoy.config.endpoint.v3.ClusterLoadAssignment"
	nameSecret              protoreflect.FullName = "envoy.extensions.transport_sockets.tls.v3.Secret"
	nameConnectionManager   protoreflect.FullName = "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"
	nameNetworkFilter       protoreflect.FullName = "envoy.config.listener.v3.Filter"
	nameHTTPProtocolOptions protoreflect.FullName = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"
)

// msg is a message read by field name; the zero msg is an absent message.
// errs collects the failed lookups of the read the message belongs to
// (nil: they are not recorded).
type msg struct {
	m    protoreflect.Message
	errs *lookups
}

// wrap reads m, recording failed lookups in errs; a nil or invalid message
// is absent.
func wrap(m protoreflect.Message, errs *lookups) msg {
	if m == nil || !m.IsValid() {
		return msg{}
	}
	return msg{m, errs}
}

// of reads m with the lookups of x: a message reached from x.
func (x msg) of(m protoreflect.Message) msg { return msg{m, x.errs} }

// ok reports whether the message is present.
func (x msg) ok() bool { return x.m != nil }

// name is the message's full name, "" when it is absent.
func (x msg) name() protoreflect.FullName {
	if x.m == nil {
		return ""
	}
	return x.m.Descriptor().FullName()
}

// A SchemaError says that the loader asked a message for a field (or a
// oneof) its type does not have, or for a message type (Field "") Envoy's
// API does not have.
type SchemaError struct {
	Message protoreflect.FullName
	Field   string
	Oneof   bool
}

func (e *SchemaError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("Envoy's API has no message %s", e.Message)
	}
	what := "field"
	if e.Oneof {
		what = "oneof"
	}
	return fmt.Sprintf("%s has no %s %s", e.Message, what, e.Field)
}

// lookups records the failed lookups of one read that are not reported
// yet: the first, and how many. The messages of one read may be built
// side by side.
type lookups struct {
	mu    sync.Mutex
	first error
	n     int
}

func (l *lookups) add(err error) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		l.first = err
	}
	l.n++
}

// diagnostic reports the failed lookups not reported yet as an internal
// error of file: what the loader read of it may be incomplete, so the
// file is not passed as linted. ok is false when there was none.
func (l *lookups) diagnostic(file string) (model.Diagnostic, bool) {
	if l == nil {
		return model.Diagnostic{}, false
	}
	l.mu.Lock()
	first, n := l.first, l.n
	l.first, l.n = nil, 0
	l.mu.Unlock()
	if first == nil {
		return model.Diagnostic{}, false
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (and %d more failed lookups)", n-1)
	}
	return model.Diagnostic{
		Code: CodeSyntax, Severity: model.Error, Pos: model.Pos{File: file, Line: 1, Col: 1}, Fatal: true,
		Message: fmt.Sprintf("internal error while reading this Envoy configuration: %v%s", first, more),
	}, true
}

// field is the field of the given proto name, or a *SchemaError when the
// message's type has none of that name.
func (x msg) field(name string) (protoreflect.FieldDescriptor, error) {
	d := x.m.Descriptor()
	fd := d.Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		return nil, &SchemaError{Message: d.FullName(), Field: name}
	}
	return fd, nil
}

// fd is field for the accessors: a failed lookup is recorded and fd is
// nil.
func (x msg) fd(name string) protoreflect.FieldDescriptor {
	fd, err := x.field(name)
	if err != nil {
		x.errs.add(err)
	}
	return fd
}

// value is the value of a field, and false when the field is unknown
// (recorded) or, with set, unset.
func (x msg) value(name string, set bool) (protoreflect.Value, protoreflect.FieldDescriptor, bool) {
	if x.m == nil {
		return protoreflect.Value{}, nil, false
	}
	fd := x.fd(name)
	if fd == nil || set && !x.m.Has(fd) {
		return protoreflect.Value{}, fd, false
	}
	return x.m.Get(fd), fd, true
}

// has reports whether a field is set: a message field holds a message, a
// member of a oneof is the one chosen, a scalar is not its zero value.
func (x msg) has(name string) bool {
	_, _, ok := x.value(name, true)
	return ok
}

// sub is a message field (a sub-message); absent when unset.
func (x msg) sub(name string) msg {
	v, _, ok := x.value(name, true)
	if !ok {
		return msg{}
	}
	return x.of(v.Message())
}

// str is a string field.
func (x msg) str(name string) string {
	v, _, ok := x.value(name, false)
	if !ok {
		return ""
	}
	return v.String()
}

// flag is a bool field.
func (x msg) flag(name string) bool {
	v, _, ok := x.value(name, false)
	return ok && v.Bool()
}

// uint is an unsigned integer field.
func (x msg) uint(name string) uint64 {
	v, _, ok := x.value(name, false)
	if !ok {
		return 0
	}
	return v.Uint()
}

// integer is a signed integer field.
func (x msg) integer(name string) int64 {
	v, _, ok := x.value(name, false)
	if !ok {
		return 0
	}
	return v.Int()
}

// enum is an enum field's value name, or its number when the enum has no
// value of that number (as the generated String methods write it).
func (x msg) enum(name string) string {
	v, fd, ok := x.value(name, false)
	if !ok {
		return ""
	}
	n := v.Enum()
	if v := fd.Enum().Values().ByNumber(n); v != nil {
		return string(v.Name())
	}
	return strconv.Itoa(int(n))
}

// list is a repeated message field.
func (x msg) list(name string) []msg {
	v, _, ok := x.value(name, true)
	if !ok {
		return nil
	}
	l := v.List()
	out := make([]msg, l.Len())
	for i := range out {
		out[i] = x.of(l.Get(i).Message())
	}
	return out
}

// entry is one entry of a map field of messages.
type entry struct {
	key string
	val msg
}

// entries is a map field of messages with string keys, sorted by key.
func (x msg) entries(name string) []entry {
	v, _, ok := x.value(name, true)
	if !ok {
		return nil
	}
	var out []entry
	v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		out = append(out, entry{k.String(), x.of(v.Message())})
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// oneofField is the oneof of the given proto name, or a *SchemaError when
// the message's type has none of that name.
func (x msg) oneofField(name string) (protoreflect.OneofDescriptor, error) {
	d := x.m.Descriptor()
	od := d.Oneofs().ByName(protoreflect.Name(name))
	if od == nil {
		return nil, &SchemaError{Message: d.FullName(), Field: name, Oneof: true}
	}
	return od, nil
}

// oneof is the proto name of the field set in a oneof, "" when none is
// (or the oneof is unknown, which is recorded).
func (x msg) oneof(name string) string {
	if x.m == nil {
		return ""
	}
	od, err := x.oneofField(name)
	if err != nil {
		x.errs.add(err)
		return ""
	}
	if fd := x.m.WhichOneof(od); fd != nil {
		return string(fd.Name())
	}
	return ""
}

// duration is a google.protobuf.Duration field, and whether it is set.
// Like durationpb's AsDuration, a value beyond time.Duration's range is
// held at its bounds.
func (x msg) duration(name string) (time.Duration, bool) {
	d := x.sub(name)
	if !d.ok() {
		return 0, false
	}
	return durationOf(d.integer("seconds"), d.integer("nanos")), true
}

func durationOf(secs, nanos int64) time.Duration {
	d := time.Duration(secs) * time.Second
	overflow := d/time.Second != time.Duration(secs)
	d += time.Duration(nanos)
	overflow = overflow || (secs < 0 && nanos < 0 && d > 0) || (secs > 0 && nanos > 0 && d < 0)
	switch {
	case overflow && secs < 0:
		return math.MinInt64
	case overflow && secs > 0:
		return math.MaxInt64
	}
	return d
}

// wrapped is the value of a google.protobuf wrapper field (BoolValue,
// UInt32Value, ...), and whether the field is set.
func (x msg) wrapped(name string) (protoreflect.Value, bool) {
	w := x.sub(name)
	if !w.ok() {
		return protoreflect.Value{}, false
	}
	v, _, ok := w.value("value", false)
	return v, ok
}

// payload is the message an Any holds, decoded once per load (unpack).
func payload(a msg) (msg, bool) {
	if !a.ok() {
		return msg{}, false
	}
	if a.name() != nameAny {
		return msg{}, false
	}
	inner, err := unpack(a.m)
	if err != nil {
		return msg{}, false
	}
	return wrap(inner, a.errs), true
}
