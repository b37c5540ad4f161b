package treeedit

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

// decodeAll reads every document of text into plain values.
func decodeAll(text []byte) ([]any, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	var out []any
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return nil, err
		}
		out = append(out, v)
	}
}

// stringKeys reports whether every mapping of v has string keys, as the
// check's plain values need.
func stringKeys(v any) bool {
	switch c := v.(type) {
	case map[string]any:
		for _, x := range c {
			if !stringKeys(x) {
				return false
			}
		}
	case []any:
		for _, x := range c {
			if !stringKeys(x) {
				return false
			}
		}
	case map[any]any:
		return false
	}
	return true
}

// step is one key or index of the path to a node.
type step struct {
	key   string
	index int
}

// pathTo returns the document and the path of n.
func (s *spans) pathTo(n *node) (int, []step) {
	var path []step
	for c := n; c.parent != nil; c = c.parent {
		p := c.parent
		if p.kind == model.MapValue {
			path = append([]step{{key: c.key.text}}, path...)
			continue
		}
		for i, en := range p.entries {
			if en.val == c {
				path = append([]step{{index: i}}, path...)
			}
		}
	}
	root := n
	for root.parent != nil {
		root = root.parent
	}
	for i, d := range s.docs {
		if d == root {
			return i, path
		}
	}
	return -1, nil
}

// change applies f to the value at path in v.
func change(v any, path []step, f func(any) (any, bool)) (any, bool) {
	if len(path) == 0 {
		return f(v)
	}
	switch c := v.(type) {
	case map[string]any:
		old, ok := c[path[0].key]
		if !ok {
			return nil, false
		}
		nv, ok := change(old, path[1:], f)
		c[path[0].key] = nv
		return c, ok
	case []any:
		if path[0].index >= len(c) {
			return nil, false
		}
		nv, ok := change(c[path[0].index], path[1:], f)
		c[path[0].index] = nv
		return c, ok
	}
	return nil, false
}

func fuzzValue(b byte) (model.Value, any) {
	switch b % 5 {
	case 0:
		return model.Number("7"), 7
	case 1:
		return model.String("a b: c"), "a b: c"
	case 2:
		return model.Map(model.F("inner", model.String("on")), model.F("n", model.Bool(true))), map[string]any{"inner": "on", "n": true}
	case 3:
		return model.List(model.String("x"), model.Map(model.F("k", model.Null()))), []any{"x", map[string]any{"k": nil}}
	}
	return model.Map(), map[string]any{}
}

// FuzzTreeEditor makes edits chosen by the input on a YAML or JSON file
// and checks that the result reads back as the input with that change and
// no other.
func FuzzTreeEditor(f *testing.F) {
	for _, c := range treeCases {
		f.Add([]byte(c.src), []byte{0, 1, 2, 1, 2, 3, 2, 0, 4, 3, 4, 1})
	}
	f.Add([]byte("a: [1, {b: [2, 3]}]\nc: {d: {}, e: []}\n"), []byte{0, 3, 1, 4, 2, 2, 1, 5, 3})
	f.Add([]byte("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}\n"), []byte{0, 3, 1, 4, 2, 2, 1, 5, 3})
	f.Add([]byte("- a\n- b:\n    c: 1\n  d: |\n    x\n-\n"), []byte{3, 1, 0, 4, 4, 2, 2, 2, 1})
	f.Fuzz(func(t *testing.T, src, ops []byte) {
		if len(src) > 4096 || len(ops) > 15 {
			return
		}
		for i := 0; i+2 < len(ops); i += 3 {
			var ok bool
			src, ok = fuzzTreeEdit(t, src, ops[i], int(ops[i+1]), ops[i+2], i/3)
			if !ok {
				return
			}
		}
	})
}

func fuzzTreeEdit(t *testing.T, src []byte, op byte, target int, extra byte, n int) ([]byte, bool) {
	before, err := decodeAll(src)
	if err != nil || !stringKeys(before) {
		return nil, false
	}
	s, err := readSpans("f", src)
	if err != nil || len(s.byPos) == 0 {
		return nil, false
	}
	e := New("f", src, AsGiven)
	nd := s.byPos[target%len(s.byPos)]
	v, plain := fuzzValue(extra)
	key := fmt.Sprintf("fuzzkey%d", n)
	var edits []model.Edit
	var want func(any) (any, bool)
	var at *node
	pos := model.Pos{File: "f", Line: nd.line, Col: nd.col}
	switch op % 5 {
	case 0, 1: // a field in the mapping at the node
		if nd.kind != model.MapValue {
			return src, true
		}
		at = nd
		where := model.AtStart
		if op%5 == 1 {
			where = model.AtEnd
		}
		edits, err = e.InsertField(pos, where, key, v)
		want = func(x any) (any, bool) {
			m, ok := x.(map[string]any)
			if ok {
				m[key] = plain
			}
			return m, ok
		}
	case 2: // a field next to the key at the node
		if !nd.isKey() {
			return src, true
		}
		at = nd.parent
		where := model.Before
		if extra&0x80 != 0 {
			where = model.After
		}
		edits, err = e.InsertField(pos, where, key, v)
		want = func(x any) (any, bool) {
			m, ok := x.(map[string]any)
			if ok {
				m[key] = plain
			}
			return m, ok
		}
	case 3: // the value of the field at the node, or the value there
		if nd.isKey() {
			at = nd.parent
			k := nd.text
			edits, err = e.SetValue(pos, v)
			want = func(x any) (any, bool) {
				m, ok := x.(map[string]any)
				if ok {
					m[k] = plain
				}
				return m, ok
			}
			break
		}
		if nd.parent == nil || nd.parent.kind != model.ListValue || len(s.at(pos)) != 1 {
			return src, true
		}
		at = nd.parent
		i := 0
		for j, en := range nd.parent.entries {
			if en.val == nd {
				i = j
			}
		}
		edits, err = e.SetValue(pos, v)
		want = func(x any) (any, bool) {
			l, ok := x.([]any)
			if ok {
				l[i] = plain
			}
			return l, ok
		}
	case 4:
		switch {
		case nd.kind == model.ListValue:
			at = nd
			edits, err = e.Append(pos, v)
			want = func(x any) (any, bool) {
				l, ok := x.([]any)
				return append(l, plain), ok
			}
		case nd.isKey():
			at = nd.parent
			k := nd.text
			edits, err = e.RemoveField(pos)
			want = func(x any) (any, bool) {
				m, ok := x.(map[string]any)
				if ok {
					delete(m, k)
				}
				return m, ok
			}
		default:
			return src, true
		}
	}
	if err != nil {
		return src, true // refused: nothing changed
	}
	out := applyEdits(t, src, edits)
	after, err := decodeAll(out)
	if err != nil {
		t.Fatalf("op %d at %d:%d: the result does not read: %v\nbefore:\n%s\nafter:\n%s", op%5, nd.line, nd.col, err, src, out)
	}
	doc, path := s.pathTo(at)
	if doc < 0 || doc >= len(before) {
		t.Fatalf("no document for the node")
	}
	nv, ok := change(before[doc], path, want)
	if !ok {
		t.Fatalf("op %d at %d:%d: the path %v does not lead to the node", op%5, nd.line, nd.col, path)
	}
	before[doc] = nv
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("op %d at %d:%d: the result reads as\n%#v\nwant\n%#v\nbefore:\n%s\nafter:\n%s", op%5, nd.line, nd.col, after, before, src, out)
	}
	return out, true
}
