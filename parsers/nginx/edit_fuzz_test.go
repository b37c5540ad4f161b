package nginx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// flatDir is a directive of a parse tree with the path of blocks that
// holds it.
type flatDir struct {
	d      *Directive
	parent string // the names and arguments of the blocks above, outermost first
	index  int    // among its siblings
	size   int    // directives in it and below it, itself included
}

func flattenTree(ds []*Directive, parent string, out *[]flatDir) int {
	n := 0
	for i, d := range ds {
		at := len(*out)
		*out = append(*out, flatDir{d: d, parent: parent, index: i})
		size := 1 + flattenTree(d.Block, pathOf(parent, i, d), out)
		(*out)[at].size = size
		n += size
	}
	return n
}

// FuzzEditor applies edits chosen by the input to a configuration and
// checks that the result reads back with each edit where it was meant:
// a directive inserted in a block is in that block, one inserted next to a
// directive is its neighbour, an argument set reads back as written, and a
// removal removes what it names and nothing else.
func FuzzEditor(f *testing.F) {
	for _, c := range editCases {
		f.Add([]byte(c.src), []byte{0, 3, 1, 2, 5, 0})
		f.Add([]byte(c.src), []byte{1, 1, 3, 4, 7, 1})
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), []byte{0, 0, 2, 1, 3, 4, 2, 2})
	}
	f.Fuzz(func(t *testing.T, src, ops []byte) {
		if len(src) > 1<<14 || len(ops) > 24 {
			return
		}
		f, err := ParseFile("f.conf", src)
		if err != nil {
			return
		}
		// nginx reads through a buffer of maxToken bytes, so whether a
		// word or a Lua block near that size reads depends on where it
		// starts, which an edit moves (see FuzzParse).
		long := false
		walkTree(f.Directives, func(d *Directive) {
			long = long || d.Lua() != nil && len(*d.Lua()) >= maxToken/2-64 || len(d.Name) > maxToken/2
			for _, a := range d.Args {
				long = long || int(a.Len) > maxToken/2
			}
		})
		if long {
			return
		}
		for i := 0; i+2 < len(ops); i += 3 {
			src = fuzzEdit(t, src, ops[i], int(ops[i+1]), ops[i+2], i/3)
		}
	})
}

// fuzzEdit makes one edit, checks it and returns the new text.
func fuzzEdit(t *testing.T, src []byte, op byte, target int, extra byte, n int) []byte {
	before, err := ParseFile("f.conf", src)
	if err != nil {
		t.Fatalf("input does not parse: %v", err)
	}
	var flat []flatDir
	total := flattenTree(before.Directives, "", &flat)
	if len(flat) == 0 {
		return src
	}
	fd := flat[target%len(flat)]
	d := fd.d
	e := NewEditor("f.conf", src)
	name := fmt.Sprintf("fuzz_added_%d", n)
	added := model.Directive{Name: name, Args: []string{"1"}}
	if extra&1 == 1 && !handlerBlocks[d.Name] {
		added.Block = []model.Directive{{Name: "fuzz_inner", Args: []string{"2"}}}
	}
	var edits []model.Edit
	kind := op % 6
	switch kind {
	case 0, 1: // in the block
		if d.Block == nil || d.Lua() != nil {
			return src
		}
		if added.Block != nil && handlerBlocks[d.Name] {
			added.Block = nil
		}
		where := model.AtStart
		if kind == 1 {
			where = model.AtEnd
		}
		edits, err = e.Insert(d.Pos, where, added)
	case 2, 3: // next to it
		if added.Block != nil && handlerBlocks[lastName(fd.parent)] {
			added.Block = nil
		}
		where := model.Before
		if kind == 3 {
			where = model.After
		}
		edits, err = e.Insert(d.Pos, where, added)
	case 4: // an argument
		if len(d.Args) == 0 {
			return src
		}
		i := int(extra) % (len(d.Args) + 1)
		if extra&0x80 != 0 && i < len(d.Args) && len(d.Args) > 1 {
			edits, err = e.RemoveArg(d.Pos, i)
		} else {
			edits, err = e.SetArg(d.Pos, i, "'fuzz v'")
		}
	case 5:
		edits, err = e.Remove(d.Pos)
	}
	if err != nil {
		t.Fatalf("%d on %s %s: %v\n%s", kind, d.Name, d.Pos, err, src)
	}
	out := applyEdits(t, src, edits)
	after, err := ParseFile("f.conf", out)
	if err != nil {
		t.Fatalf("edit %d on %s at %s: the result does not parse: %v\nbefore:\n%s\nafter:\n%s", kind, d.Name, d.Pos, err, src, out)
	}
	var flatAfter []flatDir
	totalAfter := flattenTree(after.Directives, "", &flatAfter)
	find := func(name string) *flatDir {
		for i := range flatAfter {
			if flatAfter[i].d.Name == name {
				return &flatAfter[i]
			}
		}
		return nil
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("edit %d on %s at %s: %s\nbefore:\n%s\nafter:\n%s", kind, d.Name, d.Pos, fmt.Sprintf(format, args...), src, out)
	}
	self := pathOf(fd.parent, fd.index, d)
	switch kind {
	case 0, 1:
		a := find(name)
		if a == nil || a.parent != self {
			fail("the new directive is not in the block")
		}
		if kind == 0 && a.index != 0 || kind == 1 && a.index != len(d.Block) {
			fail("the new directive is at %d of %d", a.index, len(d.Block)+1)
		}
	case 2, 3:
		a := find(name)
		want := fd.index
		if kind == 3 {
			want++
		}
		if a == nil || a.parent != fd.parent || a.index != want {
			fail("the new directive is not next to it")
		}
	case 4:
		var got *flatDir
		for i := range flatAfter {
			if flatAfter[i].parent == fd.parent && flatAfter[i].index == fd.index {
				got = &flatAfter[i]
			}
		}
		if got == nil {
			fail("the directive is gone")
		}
		i := int(extra) % (len(d.Args) + 1)
		if extra&0x80 != 0 && i < len(d.Args) && len(d.Args) > 1 {
			if len(got.d.Args) != len(d.Args)-1 {
				fail("the argument is not removed")
			}
		} else if i >= len(got.d.Args) || got.d.Args[i].Value != "fuzz v" {
			fail("the argument is not set")
		}
	case 5:
		if totalAfter != total-fd.size {
			fail("removed %d directives, not %d", total-totalAfter, fd.size)
		}
	}
	if kind <= 3 {
		grown := 1
		if added.Block != nil {
			grown = 2
		}
		if totalAfter != total+grown {
			fail("%d directives more, not %d", totalAfter-total, grown)
		}
	}
	return out
}

// pathOf is the path of the block of d, the i-th directive under parent.
func pathOf(parent string, i int, d *Directive) string {
	return fmt.Sprintf("%s > %d:%s", parent, i, d.Name)
}

// lastName is the name of the innermost block of a parent path.
func lastName(parent string) string {
	i := strings.LastIndex(parent, " > ")
	if i < 0 {
		return ""
	}
	_, name, _ := strings.Cut(parent[i+3:], ":")
	return name
}
