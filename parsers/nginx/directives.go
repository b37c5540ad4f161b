package nginx

import (
	"fmt"
)

// The table is generated from nginx's git repository (every release from
// 1.0.0 on) and the repositories of the third-party modules people run:
//
//go:generate sh -c "go run ./internal/gendirectives -nginx $NGINX_GIT -from 1.0.0 -module lua=$LUA_GIT -module stream-lua=$STREAM_LUA_GIT -module njs=$NJS_GIT -module headers-more=$HEADERS_MORE_GIT -module brotli=$BROTLI_GIT -module geoip2=$GEOIP2_GIT -module vts=$VTS_GIT -module passenger=$PASSENGER_GIT -module nchan=$NCHAN_GIT -module naxsi=$NAXSI_GIT -module modsecurity=$MODSECURITY_GIT -module rtmp=$RTMP_GIT -module echo=$ECHO_GIT -module vod=$VOD_GIT -module secure-token=$SECURE_TOKEN_GIT -o directives_gen.go"
//go:generate go test -run TestDirectiveIndexGenerated -update-index .

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
	ctxRTMP
	ctxRTMPServer
	ctxRTMPApp
	ctxRTMPRecorder
	ctxAny
)

// argCount is the set of argument counts nginx allows (NGX_CONF_NOARGS,
// NGX_CONF_TAKE1 ... NGX_CONF_1MORE of ngx_conf_file.h).
type argCount uint16

const (
	argNone argCount = 1 << iota
	arg1
	arg2
	arg3
	arg4
	arg5
	arg6
	arg7
	argFlag
	argAny
	arg1More
	arg2More
)

// valueKind says how nginx reads a directive's value: the generic
// ngx_conf_set_*_slot handlers. kindOther is a handler of its own.
type valueKind uint8

const (
	kindOther valueKind = iota
	kindFlag
	kindMsec
	kindSec
	kindSize
	kindOff
	kindNum
	kindEnum
	kindBitmask
)

// release is an nginx version as major*1e6 + minor*1e3 + patch.
type release uint32

func releaseOf(major, minor, patch int) release {
	return release(major*1_000_000 + minor*1_000 + patch)
}

func (r release) String() string {
	return fmt.Sprintf("%d.%d.%d", r/1_000_000, r/1_000%1_000, r%1_000)
}

// directiveSpec is what nginx declares about a directive: where it is
// allowed, and in which of those places it takes a block.
type directiveSpec struct {
	contexts context
	blockIn  context
	args     argCount
	kind     valueKind
	// words are the values of an enum or bit mask, space separated; a
	// word added after the directive reads "word@1.9.13".
	words string
	// since and until bound the nginx releases that have this
	// declaration (0: all the table knows); module names the third-party
	// module that declares it ("" for nginx).
	since, until release
	module       string
}

type directiveEntry struct {
	name string
	spec directiveSpec
}

// declarations returns every declaration of directive name.
func declarations(name string) []directiveEntry {
	s, ok := findDirective(name)
	if !ok {
		return knownDirectiveList[:0:0]
	}
	return knownDirectiveList[s.lo:s.hi:s.hi]
}

// directiveSlot is a slot of directiveIndex: the range of
// knownDirectiveList (sorted by name) that declares one directive, and
// the pass module moduleDirective gives it.
type directiveSlot struct {
	// lo and hi bound the range; hi is 0 in an empty slot.
	lo, hi uint16
	// pass is 1 + the index in passModules of the module moduleDirective
	// names for the directive, 0 for none.
	pass uint8
}

// directiveIndex (directive_index_gen.go) is an open-addressing hash table
// of the directives knownDirectiveList declares: a directive's slot is the
// first one from directiveHash(name) on, wrapping around, that is empty or
// declares it. It is an array of constants written by
// TestDirectiveIndexGenerated (go test -run TestDirectiveIndexGenerated
// -update-index), so that no run builds it: every directive of every file
// is looked up, and building a map of them cost a 10-server tree 7% of
// its CPU time.
const directiveIndexSize = len(directiveIndex)

// directiveHash mixes the length of name with its first and last eight
// bytes (all of a shorter one): two loads and two multiplications, where
// a hash over every byte took a byte-long step for each. The directives
// that share both ends and a length take neighbouring slots.
func directiveHash(name string) uint32 {
	n := len(name)
	var a, b uint64
	if n >= 8 {
		a, b = load64(name), load64(name[n-8:])
	} else {
		for i := 0; i < n; i++ {
			a |= uint64(name[i]) << (8 * i)
		}
		b = a
	}
	h := a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f ^ uint64(n)
	h ^= h >> 32
	h *= 0xff51afd7ed558ccd
	return uint32(h >> 32)
}

// load64 is the first eight bytes of s, little-endian.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// findDirective returns the slot of directive name in directiveIndex.
func findDirective(name string) (directiveSlot, bool) {
	const mask = uint32(directiveIndexSize - 1)
	for i := directiveHash(name) & mask; ; i = (i + 1) & mask {
		s := directiveIndex[i]
		if s.hi == 0 {
			return directiveSlot{}, false
		}
		if knownDirectiveList[s.lo].name == name {
			return s, true
		}
	}
}

// lookupDirective finds where directive name is allowed and where it takes
// a block, over all its declarations.
func lookupDirective(name string) (directiveSpec, bool) {
	var spec directiveSpec
	decls := declarations(name)
	for _, d := range decls {
		spec.contexts |= d.spec.contexts
		spec.blockIn |= d.spec.blockIn
	}
	return spec, len(decls) > 0
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
	return childShape(name, parent, shapesChildren(parent))
}

// shapesChildren reports whether nginx looks the directives of a block
// named parent up, so that their table says whether each takes a block:
// the parser asks once per block, not once per directive in it.
func shapesChildren(parent string) bool {
	if parent != parentMain && parent != parentUnknown {
		ps, ok := lookupDirective(parent)
		if !ok || ps.blockIn == 0 || handlerBlocks[parent] {
			return false
		}
	}
	return true
}

// childShape is blockShape for a parent of which shapesChildren said
// shaped.
func childShape(name, parent string, shaped bool) (mustBlock, mustNot bool) {
	if !shaped {
		return false, false
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
