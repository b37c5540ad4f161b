package envoy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// msgFieldMethods are msg's methods that take a field's proto name (oneof
// takes a oneof's). No other type of the package has methods of these
// names that take a string, so the check reads them from the syntax.
var msgFieldMethods = map[string]bool{
	"has": true, "sub": true, "str": true, "flag": true, "uint": true, "enum": true,
	"list": true, "entries": true, "duration": true, "wrapped": true, "fd": true,
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
			if !ok || (!msgFieldMethods[sel.Sel.Name] && sel.Sel.Name != "oneof") {
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
			if sel.Sel.Name == "oneof" {
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
