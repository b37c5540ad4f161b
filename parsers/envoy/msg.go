package envoy

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The messages of Envoy's API are read through reflection, by the proto
// names of their fields, so that the loader works on messages built from
// descriptors and needs none of the generated Go types. msg reads them the
// way the generated getters do: an unset field reads as its zero value, and
// an absent message as an empty one.

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
type msg struct{ m protoreflect.Message }

// wrap reads m; a nil or invalid message is absent.
func wrap(m protoreflect.Message) msg {
	if m == nil || !m.IsValid() {
		return msg{}
	}
	return msg{m}
}

// ok reports whether the message is present.
func (x msg) ok() bool { return x.m != nil }

// name is the message's full name, "" when it is absent.
func (x msg) name() protoreflect.FullName {
	if x.m == nil {
		return ""
	}
	return x.m.Descriptor().FullName()
}

// fd is the field of the given proto name. A name the message type does
// not have is a mistake in the loader, not in the input.
func (x msg) fd(name string) protoreflect.FieldDescriptor {
	fd := x.m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic(fmt.Sprintf("%s has no field %s", x.m.Descriptor().FullName(), name))
	}
	return fd
}

// has reports whether a field is set: a message field holds a message, a
// member of a oneof is the one chosen, a scalar is not its zero value.
func (x msg) has(name string) bool {
	return x.m != nil && x.m.Has(x.fd(name))
}

// sub is a message field (a sub-message); absent when unset.
func (x msg) sub(name string) msg {
	if x.m == nil {
		return msg{}
	}
	fd := x.fd(name)
	if !x.m.Has(fd) {
		return msg{}
	}
	return msg{x.m.Get(fd).Message()}
}

// str is a string field.
func (x msg) str(name string) string {
	if x.m == nil {
		return ""
	}
	return x.m.Get(x.fd(name)).String()
}

// flag is a bool field.
func (x msg) flag(name string) bool {
	if x.m == nil {
		return false
	}
	return x.m.Get(x.fd(name)).Bool()
}

// uint is an unsigned integer field.
func (x msg) uint(name string) uint64 {
	if x.m == nil {
		return 0
	}
	return x.m.Get(x.fd(name)).Uint()
}

// enum is an enum field's value name, or its number when the enum has no
// value of that number (as the generated String methods write it).
func (x msg) enum(name string) string {
	if x.m == nil {
		return ""
	}
	fd := x.fd(name)
	n := x.m.Get(fd).Enum()
	if v := fd.Enum().Values().ByNumber(n); v != nil {
		return string(v.Name())
	}
	return strconv.Itoa(int(n))
}

// list is a repeated message field.
func (x msg) list(name string) []msg {
	if x.m == nil {
		return nil
	}
	fd := x.fd(name)
	if !x.m.Has(fd) {
		return nil
	}
	l := x.m.Get(fd).List()
	out := make([]msg, l.Len())
	for i := range out {
		out[i] = msg{l.Get(i).Message()}
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
	if x.m == nil {
		return nil
	}
	fd := x.fd(name)
	if !x.m.Has(fd) {
		return nil
	}
	var out []entry
	x.m.Get(fd).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		out = append(out, entry{k.String(), msg{v.Message()}})
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// oneof is the proto name of the field set in a oneof, "" when none is.
func (x msg) oneof(name string) string {
	if x.m == nil {
		return ""
	}
	od := x.m.Descriptor().Oneofs().ByName(protoreflect.Name(name))
	if od == nil {
		panic(fmt.Sprintf("%s has no oneof %s", x.m.Descriptor().FullName(), name))
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
	return durationOf(d.m.Get(d.fd("seconds")).Int(), d.m.Get(d.fd("nanos")).Int()), true
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
	return w.m.Get(w.fd("value")), true
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
	return wrap(inner), true
}
