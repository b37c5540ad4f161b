package envoy

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/model"
)

// msgFieldMethods are msg's methods that take a field's proto name (oneof
// takes a oneof's). No other type of the package has methods of these
// names that take a string, so the check reads them from the syntax.
var msgFieldMethods = map[string]bool{
	"has": true, "sub": true, "str": true, "flag": true, "uint": true, "enum": true,
	"list": true, "entries": true, "duration": true, "wrapped": true, "fd": true,
	"integer": true,
}

// The loader reads messages by field name, which no compiler checks: every
// name its code passes to msg is a field (or, for oneof, a oneof) of some
// message of the schema, so a misspelt name fails here and not on a user's
// configuration.
func TestMsgNamesAreInTheSchema(t *testing.T) {
	s := mustSchema(t)
	fields, oneofs := map[string]bool{}, map[string]bool{}
	s.files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		var walk func(ms protoreflect.MessageDescriptors)
		walk = func(ms protoreflect.MessageDescriptors) {
			for i := 0; i < ms.Len(); i++ {
				md := ms.Get(i)
				for j := 0; j < md.Fields().Len(); j++ {
					fields[string(md.Fields().Get(j).Name())] = true
				}
				for j := 0; j < md.Oneofs().Len(); j++ {
					oneofs[string(md.Oneofs().Get(j).Name())] = true
				}
				walk(md.Messages())
			}
		}
		walk(fd.Messages())
		return true
	})
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (!msgFieldMethods[sel.Sel.Name] && sel.Sel.Name != "oneof" && sel.Sel.Name != "oneofField") {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			known := fields
			if sel.Sel.Name == "oneof" || sel.Sel.Name == "oneofField" {
				known = oneofs
			}
			if !known[name] {
				t.Errorf("%s: %s(%q) names no field of the schema", file, sel.Sel.Name, name)
			}
			checked++
			return true
		})
	}
	if checked < 50 {
		t.Errorf("only %d names checked", checked)
	}
	t.Logf("%d names checked", checked)
}

// A field or oneof the message's type lacks is an error of the lookup,
// never a panic: the accessors read the zero value, and the read reports
// the first failure, once, as an internal error of its file.
func TestMsgUnknownFieldIsAnError(t *testing.T) {
	mustSchema(t)
	errs := &lookups{}
	cl := wrap(messageType(nameCluster).New(), errs)
	if _, err := cl.field("no_such_field"); err == nil {
		t.Fatal("field: no error for a name the schema lacks")
	} else {
		var se *SchemaError
		if !errors.As(err, &se) || se.Message != nameCluster || se.Field != "no_such_field" || se.Oneof {
			t.Fatalf("field: %v, want a SchemaError naming the cluster's missing field", err)
		}
	}
	if _, err := cl.oneofField("no_such_oneof"); err == nil {
		t.Fatal("oneofField: no error for a name the schema lacks")
	}
	if _, err := cl.field("name"); err != nil {
		t.Fatalf("field(name): %v", err)
	}
	if _, ok := errs.diagnostic("c.yaml"); ok {
		t.Fatal("a lookup that returned its error was also recorded")
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("an accessor panicked: %v", r)
			}
		}()
		if got := cl.str("no_such_field"); got != "" {
			t.Errorf("str = %q, want the zero value", got)
		}
		if cl.has("nope") || cl.sub("nope").ok() || cl.list("nope") != nil || cl.oneof("nope") != "" || cl.uint("nope") != 0 || cl.enum("nope") != "" {
			t.Error("an accessor of an unknown field read something")
		}
		if _, ok := cl.duration("nope"); ok {
			t.Error("duration of an unknown field is set")
		}
	}()
	d, ok := errs.diagnostic("c.yaml")
	if !ok {
		t.Fatal("the failed lookups were not recorded")
	}
	if !d.Fatal || d.Severity != model.Error || d.Pos != (model.Pos{File: "c.yaml", Line: 1, Col: 1}) ||
		!strings.Contains(d.Message, "envoy.config.cluster.v3.Cluster has no field no_such_field") || !strings.Contains(d.Message, "7 more failed lookups") {
		t.Errorf("diagnostic = %+v", d)
	}
	if _, ok := errs.diagnostic("c.yaml"); ok {
		t.Error("the same failures were reported twice")
	}
}

// messageType is findMessageType for the tests, which name messages the
// schema has.
func messageType(name protoreflect.FullName) protoreflect.MessageType {
	mt, err := findMessageType(name)
	if err != nil {
		panic(err)
	}
	return mt
}

// Every message a file's structure is recognised as is in the schema, so
// classify never passes over a candidate for want of it.
func TestCandidatesAreInTheSchema(t *testing.T) {
	mustSchema(t)
	for _, cd := range candidates {
		if _, err := findMessageType(cd.mt); err != nil {
			t.Error(err)
		}
	}
	if _, err := findMessageType("envoy.config.cluster.v3.NoSuchMessage"); err == nil {
		t.Error("findMessageType: no error for a message the schema lacks")
	}
}
