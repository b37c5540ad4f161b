package nginx

import "testing"

// TestArgsOfDirectivesAreSeparate checks that the directives' arguments,
// which share the lexer's blocks of words, do not overlap: appending to one
// directive's arguments leaves the next directive's alone.
func TestArgsOfDirectivesAreSeparate(t *testing.T) {
	f, err := ParseFile("a.conf", []byte("a 1 2;\nb 3;\nc { d 4 5 6; }\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.Directives[0], f.Directives[1]
	if len(a.Args) != 2 || cap(a.Args) != 2 {
		t.Fatalf("a: %d arguments, capacity %d; want 2 and 2", len(a.Args), cap(a.Args))
	}
	a.Args = append(a.Args, Arg{Value: "x"})
	if b.Name != "b" || len(b.Args) != 1 || b.Args[0].Value != "3" {
		t.Fatalf("b after appending to a: %s %v", b.Name, b.ArgValues())
	}
	d := f.Directives[2].Block[0]
	if got := d.String(); got != "d 4 5 6" || d.Pos.Line != 3 || d.ArgPos(2).Col != 11 {
		t.Fatalf("d = %q at %v, last argument at %v", got, d.Pos, d.ArgPos(2))
	}
}
