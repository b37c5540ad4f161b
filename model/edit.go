package model

// Editing a configuration.
//
// A fix names the place it changes by the positions the loaders already
// put in the model (a setting's Pos, a route's, an upstream's) and says
// what to change there; the loader that read the file turns that into
// byte edits written in the file's own style. The editors are declared
// here and implemented by the loaders (parsers/nginx for nginx's syntax,
// parsers/envoy and parsers/kube for YAML and JSON), and each File the
// loaders return carries its own in File.Editor, so that a rule, which
// imports this package and no loader, edits without reading the text.
//
// Why editors and not edit intents: a fix decides by what is written
// where it edits (is the directive already there, does the location set
// a header of its own, which argument holds the format), so it asks
// questions of the syntax as well as requesting changes, and an editor
// answers both at the moment the fix is built. Intents turned into bytes
// later would leave a fix unable to tell, when it is made, whether it
// can be made at all. A fix is still all or nothing: an editor's error
// makes the whole fix fail.
//
// Why positions and not handles: every model node already keeps the
// position the loader read it at, so addressing by position costs the
// model no byte. The editor finds the node at a position through a span
// index it builds from the file's source the first time it is asked, and
// only for files that are edited.

// Edit is one change to a source file: the bytes [Start, End) of the
// file's source are replaced by New. Start == End inserts.
type Edit struct {
	File  string
	Start int
	End   int
	New   string
}

// Where places what is inserted: at the start or the end of a block (or
// a mapping), or before or after a statement (or a field).
type Where uint8

// Places to insert at.
const (
	AtStart Where = iota + 1
	AtEnd
	Before
	After
)

func (w Where) String() string {
	switch w {
	case AtStart:
		return "at the start"
	case AtEnd:
		return "at the end"
	case Before:
		return "before"
	case After:
		return "after"
	}
	return "nowhere"
}

// Editor edits one source file in its own style: its indentation, its
// line endings, its one-line blocks and flow collections, its spelling of
// names. Every method that changes the file returns the edits that make
// the change and leaves the file as it is: a fix collects them, and the
// program applies them (or prints them) at the end of the run. Positions
// are those the loader put in the model for this file.
type Editor interface {
	// Path is the file the editor edits.
	Path() string
}

// Conf returns the file's editor when the file is in nginx's syntax.
func (f *File) Conf() (ConfEditor, bool) {
	if f == nil {
		return nil, false
	}
	e, ok := f.Editor.(ConfEditor)
	return e, ok
}

// Tree returns the file's editor when the file is YAML or JSON.
func (f *File) Tree() (TreeEditor, bool) {
	if f == nil {
		return nil, false
	}
	e, ok := f.Editor.(TreeEditor)
	return e, ok
}

// ---- nginx's syntax ----

// Directive is a directive to write in nginx's syntax: its name, its
// arguments as they are to be written (quotes included: the editor writes
// them as given) and, for a block directive, the directives in its block
// (Block non-nil, empty for an empty block). A Directive without a name
// is a blank line, written only where the new directives go on lines of
// their own.
type Directive struct {
	Name  string
	Args  []string
	Block []Directive
}

// Stmt is a directive as the file has it.
type Stmt struct {
	// Pos is where the directive's name starts.
	Pos  Pos
	Name string
	// Args are the arguments as nginx reads them (unquoted, unescaped);
	// Raw the same arguments as written, quotes included.
	Args []string
	Raw  []string
	// Block is set for a block directive.
	Block bool
}

// TopLevel is the position that stands for the top level of a file, for
// the ConfEditor methods that take a block: the file's path, no line.
func TopLevel(file string) Pos { return Pos{File: file} }

// ConfEditor edits a file of nginx's syntax. A position names a directive
// when it is where the directive's name or one of its arguments starts
// (so a Server's Pos, at its address, names its server directive); a
// block is named by its directive, the top level of the file by
// TopLevel.
type ConfEditor interface {
	Editor
	// Stmt returns the directive at at.
	Stmt(at Pos) (Stmt, bool)
	// Parent returns the block directive that holds the directive at
	// at; false at the top level of the file.
	Parent(at Pos) (Stmt, bool)
	// Children lists the directives directly in the block of the
	// directive at block (or at the top level of the file).
	Children(block Pos) ([]Stmt, error)
	// Find lists the directives named name anywhere in the file, at any
	// depth, in the order they are written.
	Find(name string) ([]Stmt, error)
	// UsesVariable reports whether an argument of a directive of the
	// file uses the variable $name (or ${name}).
	UsesVariable(name string) (bool, error)

	// Insert writes directives AtStart or AtEnd of the block of the
	// directive at at (or of the top level), or Before or After the
	// directive at at: on lines of their own, indented as the block's
	// directives are, where the block's directives stand on lines of
	// their own; on the line of the directive (or inside the braces of
	// a one-line block) where they do not.
	Insert(at Pos, where Where, ds ...Directive) ([]Edit, error)
	// SetArg replaces argument i (0-based, after the name) of the
	// directive at at with raw, written as given; i == the number of
	// arguments adds one at the end.
	SetArg(at Pos, i int, raw string) ([]Edit, error)
	// InsertArg writes raw as argument i, before the argument that is
	// there now.
	InsertArg(at Pos, i int, raw string) ([]Edit, error)
	// RemoveArg deletes argument i with the blanks before it.
	RemoveArg(at Pos, i int) ([]Edit, error)
	// Rename replaces the name of the directive at at with name, its
	// arguments as they are.
	Rename(at Pos, name string) ([]Edit, error)
	// Remove deletes the directive at at (a block directive with its
	// block), and its line when nothing else is on it.
	Remove(at Pos) ([]Edit, error)
}

// ---- YAML and JSON ----

// ValueKind is the kind of a value written into YAML or JSON.
type ValueKind uint8

// Kinds of values.
const (
	StringValue ValueKind = iota + 1
	NumberValue
	BoolValue
	NullValue
	MapValue
	ListValue
)

// Value is a value to write into YAML or JSON. The editor writes it as
// the file writes values: block or flow style, quoting strings where the
// file's syntax needs it, field names in the file's case.
type Value struct {
	Kind ValueKind
	// Text is a scalar's value: the string, the number as digits, "true"
	// or "false".
	Text string
	// Fields are a mapping's fields, in order; Items a list's items.
	Fields []Field
	Items  []Value
}

// Field is one field of a mapping to write: Key in snake_case (or in
// camelCase where the schema has only that), converted to the file's case.
type Field struct {
	Key   string
	Value Value
}

// String returns a string value.
func String(s string) Value { return Value{Kind: StringValue, Text: s} }

// Number returns a number value written as the digits given.
func Number(digits string) Value { return Value{Kind: NumberValue, Text: digits} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	if b {
		return Value{Kind: BoolValue, Text: "true"}
	}
	return Value{Kind: BoolValue, Text: "false"}
}

// Null returns the null value.
func Null() Value { return Value{Kind: NullValue, Text: "null"} }

// Map returns a mapping of the fields given.
func Map(fields ...Field) Value { return Value{Kind: MapValue, Fields: fields} }

// List returns a list of the items given.
func List(items ...Value) Value { return Value{Kind: ListValue, Items: items} }

// F returns a field of a mapping.
func F(key string, v Value) Field { return Field{Key: key, Value: v} }

// Node is a value as a YAML or JSON file has it.
type Node struct {
	// Pos is where the node starts; Key is set for the value of a field,
	// KeyPos where its key starts.
	Pos    Pos
	Key    string
	KeyPos Pos
	Kind   ValueKind
	// Text is a scalar's value as the reader resolves it (unquoted).
	Text string
	// Flow is set for a mapping or list written in flow style ("{a: 1}",
	// "[1, 2]", or any JSON).
	Flow bool
}

// TreeEditor edits a YAML or JSON file. A position names a field when it
// is where the field's key starts (a setting's Pos), and a mapping or a
// list when it is where the mapping or list starts, or where the key of
// the field whose value it is starts (the Pos of a default, which points
// at the block that inherits it or at its field). In block YAML a mapping
// starts where its first key does: a position there names that mapping
// for the methods that take one, and the field for the others; a fix that
// means the first field's value says so with Node(at).Pos.
type TreeEditor interface {
	Editor
	// Node returns the field at at (its value, with the key), or the
	// value that starts at at.
	Node(at Pos) (Node, bool)
	// Lookup returns the value of the field named key (in snake_case or
	// camelCase) of the mapping at mapping.
	Lookup(mapping Pos, key string) (Node, bool)
	// Name returns key as the mapping at mapping writes its field names:
	// in camelCase or in snake_case.
	Name(mapping Pos, key string) string

	// SetValue replaces the value of the field at at, or the value that
	// starts at at, with v.
	SetValue(at Pos, v Value) ([]Edit, error)
	// SetField sets the field key of the mapping at mapping to v: its
	// value is replaced when the field is there, else the field is added
	// at the end of the mapping.
	SetField(mapping Pos, key string, v Value) ([]Edit, error)
	// InsertField adds a field AtStart or AtEnd of the mapping at at, or
	// Before or After the field at at, in its mapping.
	InsertField(at Pos, where Where, key string, v Value) ([]Edit, error)
	// Append adds v at the end of the list at list.
	Append(list Pos, v Value) ([]Edit, error)
	// RemoveField deletes the field at at.
	RemoveField(at Pos) ([]Edit, error)
}
