package nginx

import "sort"

//go:generate sh -c "go run ./internal/gendirectives -src $NGINX_SRC/src -version $NGINX_VERSION -o directives_gen.go"

// context is a bit set of the configuration contexts nginx allows a
// directive in (NGX_MAIN_CONF, NGX_HTTP_LOC_CONF, ...).
type context uint32

const (
	ctxMain context = 1 << iota
	ctxEvents
	ctxHTTP
	ctxHTTPServer
	ctxHTTPLocation
	ctxHTTPUpstream
	ctxHTTPServerIf
	ctxHTTPLocationIf
	ctxHTTPLimitExcept
	ctxStream
	ctxStreamServer
	ctxStreamUpstream
	ctxMail
	ctxMailServer
	ctxAny
)

// directiveSpec is what nginx declares about a directive: where it is
// allowed, and in which of those places it takes a block.
type directiveSpec struct {
	contexts context
	blockIn  context
}

type directiveEntry struct {
	name string
	spec directiveSpec
}

// lookupDirective finds what nginx declares about directive name.
func lookupDirective(name string) (directiveSpec, bool) {
	list := knownDirectiveList[:]
	i := sort.Search(len(list), func(i int) bool { return list[i].name >= name })
	if i < len(list) && list[i].name == name {
		return list[i].spec, true
	}
	return directiveSpec{}, false
}

// handlerBlocks are the blocks whose contents nginx hands to a custom
// handler (cf->handler) instead of looking up directives: their entries are
// data, and a nested "{" is an error.
var handlerBlocks = map[string]bool{
	"types":         true,
	"map":           true,
	"geo":           true,
	"charset_map":   true,
	"split_clients": true,
}

// Parents with a special meaning for blockShape.
const (
	parentMain    = ""  // the top level of the main file
	parentUnknown = "*" // the top level of a fragment whose context is unknown
)

// blockShape says whether nginx requires directive name, inside a block
// named parent, to take a block (mustBlock) or to end with ";" (mustNot).
// Unknown directives (third-party modules) may do either; so may the
// entries of blocks nginx does not know.
func blockShape(name, parent string) (mustBlock, mustNot bool) {
	if parent != parentMain && parent != parentUnknown {
		ps, ok := lookupDirective(parent)
		if !ok || ps.blockIn == 0 || handlerBlocks[parent] {
			return false, false
		}
	}
	spec, ok := lookupDirective(name)
	if !ok {
		return false, false
	}
	switch {
	case spec.blockIn == 0:
		return false, true
	case spec.contexts&^spec.blockIn == 0:
		return true, false
	}
	// "server" is a block in http, stream and mail, and a simple
	// directive in upstream blocks.
	switch parent {
	case "upstream":
		return false, true
	case parentUnknown:
		return false, false
	}
	return true, false
}

// LooksLikeConfig reports whether src (possibly only the start of a file)
// reads as an nginx configuration: its first statement names a directive
// nginx knows, or a Lua block.
func LooksLikeConfig(src []byte) bool {
	lx := newLexer("", src)
	st, err := lx.next()
	if err != nil || (st.kind != stmtSimple && st.kind != stmtBlockStart) {
		return false
	}
	name := st.args[0].Value
	_, known := lookupDirective(name)
	return known || isLuaBlock(name)
}
