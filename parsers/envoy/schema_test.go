package envoy

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pgvrules "github.com/envoyproxy/protoc-gen-validate/validate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	// The packages whose descriptors the schema holds, so that the
	// embedded files can be compared with theirs.
	_ "github.com/proxylint/proxylint/parsers/envoy/internal/envoyapi"
	"github.com/proxylint/proxylint/parsers/envoy/internal/pgv"
)

// decodeSchema reads a compressed FileDescriptorSet. The extensions of
// the options (validate.rules, udpa.annotations.*) are decoded with the
// given resolver; those it does not know stay unknown fields. Decoded with
// the global registry, the options hold typed values for the extensions
// the program links: proto.GetExtension(opts, validate.E_Rules) reads them
// as from the generated descriptors. Decoded with the schema as resolver,
// they are dynamic messages, which must not be read with a generated
// extension type: proto.GetExtension panics on the mismatch.
func decodeSchema(data []byte, extensions protoregistry.ExtensionTypeResolver) (*descriptorpb.FileDescriptorSet, error) {
	raw, err := gunzipSchema(data)
	if err != nil {
		return nil, err
	}
	set := &descriptorpb.FileDescriptorSet{}
	if err := (proto.UnmarshalOptions{Resolver: extensions}).Unmarshal(raw, set); err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	return set, nil
}

// TestSchemaBuiltAsByProtodesc builds the embedded files through
// protodesc, as the schema was built before it used protobuf's builder of
// descriptors, and compares every file, message, field and option.
func TestSchemaBuiltAsByProtodesc(t *testing.T) {
	set, err := decodeSchema(schemaData, new(protoregistry.Types))
	if err != nil {
		t.Fatal(err)
	}
	want, err := protodesc.NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	s := mustSchema(t)
	if got, want := s.files.NumFiles(), want.NumFiles(); got != want {
		t.Fatalf("%d files, protodesc builds %d", got, want)
	}
	n := 0
	want.RangeFiles(func(wf protoreflect.FileDescriptor) bool {
		gf, err := s.files.FindFileByPath(wf.Path())
		if err != nil {
			t.Errorf("%s: %v", wf.Path(), err)
			return true
		}
		if g, w := protodesc.ToFileDescriptorProto(gf), protodesc.ToFileDescriptorProto(wf); !proto.Equal(g, w) {
			t.Errorf("%s differs from protodesc's build:\n%v\n%v", wf.Path(), g, w)
		}
		if g, w := gf.Imports().Len(), wf.Imports().Len(); g != w {
			t.Errorf("%s: %d imports, protodesc has %d", wf.Path(), g, w)
		}
		for i := 0; i < gf.Imports().Len(); i++ {
			if imp := gf.Imports().Get(i); imp.IsPlaceholder() {
				t.Errorf("%s: import %s is a placeholder", wf.Path(), imp.Path())
			}
		}
		n++
		return true
	})
	// Every message and its fields resolve to the same types, and the
	// options keep their extensions as unknown bytes alike.
	for _, f := range set.File {
		for _, m := range f.MessageType {
			name := protoreflect.FullName(f.GetPackage()).Append(protoreflect.Name(m.GetName()))
			gd, gerr := s.files.FindDescriptorByName(name)
			wd, werr := want.FindDescriptorByName(name)
			if gerr != nil || werr != nil {
				t.Fatalf("%s: %v, %v", name, gerr, werr)
			}
			gm, wm := gd.(protoreflect.MessageDescriptor), wd.(protoreflect.MessageDescriptor)
			for i := 0; i < wm.Fields().Len(); i++ {
				gfd, wfd := gm.Fields().Get(i), wm.Fields().Get(i)
				if gfd.FullName() != wfd.FullName() || gfd.Kind() != wfd.Kind() || gfd.Cardinality() != wfd.Cardinality() ||
					gfd.JSONName() != wfd.JSONName() || gfd.HasPresence() != wfd.HasPresence() || gfd.IsPacked() != wfd.IsPacked() {
					t.Errorf("%s differs from protodesc's build", wfd.FullName())
				}
				if (wfd.Message() == nil) != (gfd.Message() == nil) || wfd.Message() != nil && (wfd.Message().FullName() != gfd.Message().FullName() || gfd.Message().IsPlaceholder()) {
					t.Errorf("%s: message type differs from protodesc's build", wfd.FullName())
				}
				if (wfd.Enum() == nil) != (gfd.Enum() == nil) || wfd.Enum() != nil && (wfd.Enum().FullName() != gfd.Enum().FullName() || gfd.Enum().IsPlaceholder()) {
					t.Errorf("%s: enum type differs from protodesc's build", wfd.FullName())
				}
				if g, w := gfd.Options().(*descriptorpb.FieldOptions), wfd.Options().(*descriptorpb.FieldOptions); !proto.Equal(g, w) || !bytes.Equal(g.ProtoReflect().GetUnknown(), w.ProtoReflect().GetUnknown()) {
					t.Errorf("%s: options differ from protodesc's build", wfd.FullName())
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d files compared", n)
	}
}

func mustSchema(t testing.TB) *schema {
	t.Helper()
	s, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The embedded files are those the generated packages register: a
// go-control-plane upgrade without running _gen/schema fails here.
func TestSchemaMatchesGenerated(t *testing.T) {
	set, err := decodeSchema(schemaData, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, got := range set.File {
		for _, dep := range got.Dependency {
			if !seen[dep] {
				t.Errorf("%s comes before %s, which it imports", got.GetName(), dep)
			}
		}
		seen[got.GetName()] = true
		if got.SourceCodeInfo != nil {
			t.Errorf("%s keeps its source info", got.GetName())
		}
		fd, err := protoregistry.GlobalFiles.FindFileByPath(got.GetName())
		if err != nil {
			t.Errorf("%s: %v", got.GetName(), err)
			continue
		}
		want := protodesc.ToFileDescriptorProto(fd)
		want.SourceCodeInfo = nil
		if !proto.Equal(got, want) {
			t.Errorf("%s differs from the linked descriptor: run go run ./_gen/schema", got.GetName())
		}
	}
}

// The embedded files are exactly those linking the packages envoyapi
// lists registers: the files of these packages, of the packages they
// import, and so on. Linking a package registers all its files, not only
// those another imports, and the loader resolves an Any against all of
// them; so do the embedded files. The loader links no package outside
// that list.
func TestSchemaHoldsLinkedPackages(t *testing.T) {
	listed := map[string]bool{}
	for pkg := range protoImports(t, filepath.Join("internal", "envoyapi", "envoyapi.go")) {
		if isAPIPackage(pkg) {
			listed[pkg] = true
		}
	}
	if len(listed) == 0 {
		t.Fatal("no package listed in internal/envoyapi")
	}
	byPackage := map[string][]protoreflect.FileDescriptor{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		pkg := goPackage(fd)
		byPackage[pkg] = append(byPackage[pkg], fd)
		return true
	})

	want := map[string]bool{}
	linked := map[string]bool{}
	var link func(pkg string)
	link = func(pkg string) {
		if linked[pkg] {
			return
		}
		linked[pkg] = true
		for _, fd := range byPackage[pkg] {
			want[fd.Path()] = true
			imports := fd.Imports()
			for i := 0; i < imports.Len(); i++ {
				link(goPackage(imports.Get(i).FileDescriptor))
			}
		}
	}
	for pkg := range listed {
		if len(byPackage[pkg]) == 0 {
			t.Errorf("%s is listed but not linked into the test", pkg)
		}
		link(pkg)
	}

	set, err := decodeSchema(schemaData, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range set.File {
		if !want[f.GetName()] {
			t.Errorf("%s is embedded but not needed", f.GetName())
		}
		delete(want, f.GetName())
	}
	for path := range want {
		t.Errorf("%s is needed but not embedded: run go run ./_gen/schema", path)
	}

	// Whatever the loader itself links, well-known types included, the
	// schema must describe.
	loader, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	embedded := map[string]bool{}
	for _, f := range set.File {
		embedded[f.GetName()] = true
	}
	for _, file := range loader {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		for pkg := range protoImports(t, file) {
			if isAPIPackage(pkg) && !listed[pkg] {
				t.Errorf("%s imports %s, which internal/envoyapi does not list", file, pkg)
			}
			for _, fd := range byPackage[pkg] {
				if !embedded[fd.Path()] {
					t.Errorf("%s imports %s, whose %s is not embedded", file, pkg, fd.Path())
				}
			}
		}
	}
}

// protoImports returns the packages a Go file imports.
func protoImports(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	for _, spec := range f.Imports {
		pkg, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[pkg] = true
	}
	return pkgs
}

// goPackage returns the import path of the Go package holding a file.
func goPackage(fd protoreflect.FileDescriptor) string {
	pkg, _, _ := strings.Cut(fd.Options().(*descriptorpb.FileOptions).GetGoPackage(), ";")
	return pkg
}

func isAPIPackage(pkg string) bool {
	return strings.HasPrefix(pkg, "github.com/envoyproxy/go-control-plane/") ||
		strings.HasPrefix(pkg, "github.com/cncf/xds/go/")
}

func TestSchemaFindsTypes(t *testing.T) {
	s := mustSchema(t)
	for _, name := range []string{
		"envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
		"envoy.extensions.filters.http.router.v3.Router",
		"envoy.config.bootstrap.v3.Bootstrap",
		"xds.type.v3.TypedStruct",
		"google.protobuf.Duration",
	} {
		mt, err := s.FindMessageByURL("type.googleapis.com/" + name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := mt.Descriptor().FullName(); got != protoreflect.FullName(name) {
			t.Errorf("%s: found %s", name, got)
		}
		if _, err := s.FindMessageByName(protoreflect.FullName(name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, url := range []string{
		"type.googleapis.com/envoy.extensions.filters.http.nonesuch.v3.Nonesuch",
		"type.googleapis.com/envoy.config.route.v3.RouteAction.ClusterNotFoundResponseCode", // an enum
	} {
		if _, err := s.FindMessageByURL(url); err == nil {
			t.Errorf("%s: found", url)
		}
	}
	url := "type.googleapis.com/envoy.extensions.filters.http.nonesuch.v3.Nonesuch"
	if _, err := s.FindMessageByURL(url); !errors.Is(err, protoregistry.NotFound) {
		t.Errorf("%s: got %v, want NotFound", url, err)
	}
}

// bootstrapJSON is a small configuration as the YAML reader hands it over.
const bootstrapJSON = `{
  "static_resources": {
    "listeners": [{
      "name": "ingress",
      "address": {"socket_address": {"address": "0.0.0.0", "port_value": 8080}},
      "filter_chains": [{"filters": [{
        "name": "envoy.filters.network.http_connection_manager",
        "typed_config": {
          "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
          "stat_prefix": "ingress",
          "stream_idle_timeout": "30s",
          "route_config": {"virtual_hosts": [{
            "name": "all", "domains": ["*"],
            "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "backend", "timeout": "2.5s"}}]
          }]},
          "http_filters": [{
            "name": "envoy.filters.http.router",
            "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}
          }]
        }
      }]}]
    }],
    "clusters": [{
      "name": "backend", "type": "STRICT_DNS", "connect_timeout": "1s",
      "load_assignment": {"cluster_name": "backend", "endpoints": [{"lb_endpoints": [
        {"endpoint": {"address": {"socket_address": {"address": "backend", "port_value": 80}}}}
      ]}]}
    }]
  }
}`

// A dynamic message read and written with the schema carries what the
// generated one does, through JSON and through the wire format.
func TestSchemaRoundTrip(t *testing.T) {
	s := mustSchema(t)
	want := &bootstrapv3.Bootstrap{}
	if err := protojson.Unmarshal([]byte(bootstrapJSON), want); err != nil {
		t.Fatal(err)
	}
	mt, err := s.FindMessageByName("envoy.config.bootstrap.v3.Bootstrap")
	if err != nil {
		t.Fatal(err)
	}
	dyn := mt.New().Interface()
	if err := (protojson.UnmarshalOptions{Resolver: s}).Unmarshal([]byte(bootstrapJSON), dyn); err != nil {
		t.Fatal(err)
	}

	js, err := protojson.MarshalOptions{Resolver: s}.Marshal(dyn)
	if err != nil {
		t.Fatal(err)
	}
	got := &bootstrapv3.Bootstrap{}
	if err := protojson.Unmarshal(js, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("through JSON:\n got %v\nwant %v", got, want)
	}

	wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	dyn = mt.New().Interface()
	if err := (proto.UnmarshalOptions{Resolver: s}).Unmarshal(wire, dyn); err != nil {
		t.Fatal(err)
	}
	back, err := proto.MarshalOptions{Deterministic: true}.Marshal(dyn)
	if err != nil {
		t.Fatal(err)
	}
	got = &bootstrapv3.Bootstrap{}
	if err := proto.Unmarshal(back, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("through the wire format:\n got %v\nwant %v", got, want)
	}
}

// The PGV rules stay in the built descriptors' options as they were
// written, left unparsed until a type is first validated: they are what
// the generated descriptors hold, and pgv.ValidateAll finds in them what
// the generated ValidateAll says.
func TestSchemaKeepsValidateRules(t *testing.T) {
	s := mustSchema(t)
	const hcm = "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"
	d, err := s.files.FindDescriptorByName(hcm)
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	gen := (&hcmv3.HttpConnectionManager{}).ProtoReflect().Descriptor()

	opts := md.Fields().ByName("stat_prefix").Options()
	unknown := opts.ProtoReflect().GetUnknown()
	if proto.HasExtension(opts, pgvrules.E_Rules) || len(unknown) == 0 {
		t.Fatalf("stat_prefix's rules are not kept unparsed: %v", opts)
	}
	parsed := &descriptorpb.FieldOptions{}
	if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(unknown, parsed); err != nil {
		t.Fatal(err)
	}
	rules := proto.GetExtension(parsed, pgvrules.E_Rules).(*pgvrules.FieldRules)
	if want := proto.GetExtension(gen.Fields().ByName("stat_prefix").Options(), pgvrules.E_Rules); rules.GetString_().GetMinLen() != 1 || !proto.Equal(rules, want.(*pgvrules.FieldRules)) {
		t.Errorf("stat_prefix rules: got %v, want %v", rules, want)
	}

	mt, err := s.FindMessageByName(hcm)
	if err != nil {
		t.Fatal(err)
	}
	got := pgv.ValidateAll(mt.New())
	want := (&hcmv3.HttpConnectionManager{}).ValidateAll()
	if got == nil || want == nil || got.Error() != want.Error() {
		t.Errorf("an empty connection manager:\n got %v\nwant %v", got, want)
	}
	if !strings.Contains(errorText(got), "StatPrefix") || !strings.Contains(errorText(got), "RouteSpecifier") {
		t.Errorf("an empty connection manager lacks stat_prefix and one of its route specifiers: %v", got)
	}
}

// A program that does not link the validate package finds the rules in the
// unknown fields of the options; the schema's own extension type reads
// them as dynamic messages.
func TestSchemaRulesWithoutValidatePackage(t *testing.T) {
	s := mustSchema(t)
	set, err := decodeSchema(schemaData, new(protoregistry.Types))
	if err != nil {
		t.Fatal(err)
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.stat_prefix")
	if err != nil {
		t.Fatal(err)
	}
	opts := d.Options().(*descriptorpb.FieldOptions)
	if proto.HasExtension(opts, pgvrules.E_Rules) || len(opts.ProtoReflect().GetUnknown()) == 0 {
		t.Fatalf("rules decoded without the validate package: %v", opts)
	}

	xt, err := s.FindExtensionByName("validate.rules")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := proto.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts = &descriptorpb.FieldOptions{}
	if err := (proto.UnmarshalOptions{Resolver: s}).Unmarshal(raw, opts); err != nil {
		t.Fatal(err)
	}
	rules := proto.GetExtension(opts, xt).(protoreflect.ProtoMessage).ProtoReflect()
	str := rules.Get(rules.Descriptor().Fields().ByName("string")).Message()
	if got := str.Get(str.Descriptor().Fields().ByName("min_len")).Uint(); got != 1 {
		t.Errorf("stat_prefix min_len = %d, want 1", got)
	}
}

// A bad embedded file is an error for the loader to report, not a panic.
func TestSchemaBuildErrors(t *testing.T) {
	set, err := decodeSchema(schemaData, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatal(err)
	}
	// The last file without the files it imports.
	raw, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: set.File[len(set.File)-1:]})
	if err != nil {
		t.Fatal(err)
	}
	var incomplete bytes.Buffer
	zw := gzip.NewWriter(&incomplete)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"empty":      nil,
		"truncated":  schemaData[:len(schemaData)/2],
		"not gzip":   raw,
		"incomplete": incomplete.Bytes(),
	} {
		if s, err := buildSchema(data); err == nil || s != nil {
			t.Errorf("%s: got %v, %v", name, s, err)
		}
	}
}

func BenchmarkSchemaBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildSchema(schemaData); err != nil {
			b.Fatal(err)
		}
	}
}
