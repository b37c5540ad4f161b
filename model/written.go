package model

// What the directives written in a block do beside the values the routes
// carry: the directives no request's handler reads, and the array-like
// directives that replace an outer level's list rather than add to it.
// The nginx loader fills them (parsers/nginx/written.go); the rules
// directive-no-effect and set-header-drops-inherited report them.

// NoEffect is a group of directives of one pass module ("proxy_*",
// "grpc_*", ...) written in one block that no request reads: every route
// they apply to hands its requests to another module's handler, ends them
// before any handler runs, or passes none at all.
type NoEffect struct {
	// Module is the module whose directives they are ("proxy").
	Module string
	// Block is the block they are written in, Level its kind ("http",
	// "server", "location", "if") and BlockName how messages name it
	// ("location /api/").
	Block     Pos
	Level     string
	BlockName string
	// Directives are the directives, in the order written.
	Directives []Unread
	// Instead says what takes the requests they apply to: the first
	// passes of other modules, then the first routes that pass nothing
	// or return first, a few of each, in the order the routes were met.
	// Passes and Others count the routes of each kind.
	Instead        []Handler
	Passes, Others int
}

// Unread is one directive no handler reads.
type Unread struct {
	// Name, Pos and Level are the directive's; Value its arguments as
	// written, space separated.
	Setting[string]
	// Include is the include directive of the block that brings the
	// directive in from another file (its first argument); invalid when
	// the directive is written in the block itself.
	Include Pos
	// Counterpart is the directive of the module in use that reads the
	// same value ("grpc_read_timeout" for "proxy_read_timeout" where
	// grpc_pass handles the requests), when that module has one and it
	// accepts these arguments; "" otherwise.
	Counterpart string
	// CounterpartSet is set when the block writes the counterpart too.
	CounterpartSet bool
	// Carries is set when the value means to the counterpart what the
	// author meant (a timeout, a retry condition both modules know);
	// false where the other protocol handles the matter itself (a
	// Connection header over HTTP/2).
	Carries bool
}

// HandlerKind says what takes a request in place of a module's handler.
type HandlerKind string

// Handler kinds.
const (
	// HandlerPass: another module's *_pass directive.
	HandlerPass HandlerKind = "pass"
	// HandlerReturn: a return directive that ends the request first.
	HandlerReturn HandlerKind = "return"
	// HandlerNone: the location passes no request on (it serves files,
	// or try_files hands requests to a named location, Fallback).
	HandlerNone HandlerKind = "none"
)

// Handler is what takes the requests of one route.
type Handler struct {
	Kind HandlerKind
	// Name is the directive ("grpc_pass", "return"); empty for
	// HandlerNone.
	Name string
	// Pos is the directive, or the route's block for HandlerNone.
	Pos Pos
	// Route names the route ("location /").
	Route string
	// Fallback is the named location try_files hands the requests to,
	// whose own settings apply there ("@backend"), with its position.
	Fallback    string
	FallbackPos Pos
}

// Override is a block that writes an array-like directive
// (proxy_set_header, grpc_set_header, fastcgi_param, uwsgi_param,
// scgi_param, add_header, add_trailer, *_hide_header): nginx then gives
// the block its own entries only and none of the outer level's.
type Override struct {
	// Directive is the directive's name; Module the pass module that
	// reads it ("proxy"), or "" for add_header and add_trailer, which
	// apply to every response.
	Directive string
	Module    string
	// Pos is the block's first such directive; Block, Level and
	// BlockName are the block's.
	Pos       Pos
	Block     Pos
	Level     string
	BlockName string
	// Written are the block's own entries, in order.
	Written []ArrayEntry
	// Lost are the outer level's entries whose names the block does not
	// write again, in the order written there; From and FromLevel are
	// that level.
	Lost      []ArrayEntry
	From      Pos
	FromLevel string
	// Routes are the routes whose requests get the block's list: those
	// that pass them with Module's handler (every route of the block for
	// add_header).
	Routes []*Route
	// ETagOff is set for add_header when "etag off" is in effect in the
	// block: nginx gives the files it serves there no ETag of its own.
	ETagOff bool
}

// ArrayEntry is one entry of an array-like directive: "proxy_set_header
// Host $host" is Name "Host", Value "$host".
type ArrayEntry struct {
	Name  string
	Value string
	Pos   Pos
}
