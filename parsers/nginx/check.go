package nginx

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/model"
)

// CustomDirective declares a directive of a module proxylint's tables do
// not know (a private module), so that the check accepts it.
type CustomDirective struct {
	Name string
	// Contexts are where it is allowed: main, events, http, server,
	// location, upstream, if, limit_except, stream, stream_server,
	// stream_upstream, mail, mail_server; empty means anywhere.
	Contexts []string
	// MinArgs and MaxArgs bound its argument count; MaxArgs < 0 means
	// no upper bound.
	MinArgs, MaxArgs int
}

// customContexts maps the context names of CustomDirective to the bits.
var customContexts = map[string]context{
	"main": ctxMain, "events": ctxEvents, "http": ctxHTTP, "server": ctxHTTPServer,
	"location": ctxHTTPLocation, "upstream": ctxHTTPUpstream, "if": ctxHTTPServerIf | ctxHTTPLocationIf,
	"limit_except": ctxHTTPLimitExcept, "stream": ctxStream, "stream_server": ctxStreamServer,
	"stream_upstream": ctxStreamUpstream, "mail": ctxMail, "mail_server": ctxMailServer,
}

// CustomContextNames lists the context names a CustomDirective may use.
func CustomContextNames() []string {
	names := make([]string, 0, len(customContexts))
	for n := range customContexts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ctxAll is every context.
const ctxAll = ctxAny<<1 - 1

// blockContexts are the blocks whose contents nginx reads as directives
// of a context of their own (ngx_conf_parse with a new cmd_type); the
// contents of other blocks are data for the module that declares them.
var blockContexts = []struct {
	name          string
	parent, child context
}{
	{"events", ctxMain, ctxEvents},
	{"http", ctxMain, ctxHTTP},
	{"stream", ctxMain, ctxStream},
	{"mail", ctxMain, ctxMail},
	{"rtmp", ctxMain, ctxRTMP},
	{"server", ctxHTTP, ctxHTTPServer},
	{"server", ctxStream, ctxStreamServer},
	{"server", ctxMail, ctxMailServer},
	{"server", ctxRTMP, ctxRTMPServer},
	{"location", ctxHTTPServer | ctxHTTPLocation, ctxHTTPLocation},
	{"upstream", ctxHTTP, ctxHTTPUpstream},
	{"upstream", ctxStream, ctxStreamUpstream},
	{"if", ctxHTTPServer, ctxHTTPServerIf},
	{"if", ctxHTTPLocation, ctxHTTPLocationIf},
	{"limit_except", ctxHTTPLocation, ctxHTTPLimitExcept},
	{"application", ctxRTMPServer, ctxRTMPApp},
	{"recorder", ctxRTMPApp, ctxRTMPRecorder},
}

// checker walks a loaded configuration in the order nginx reads it and
// reports what nginx -t refuses once its reader has accepted the file.
type checker struct {
	target  model.Target
	release release
	custom  map[string]CustomDirective
	// stop is where the loader's own syntax error is: nginx reads no
	// further, so neither does the check.
	stop    model.Pos
	stopped bool
	diags   []model.Diagnostic
	// limited counts the errors of diags that only the newer releases of
	// a target range make (a directive removed inside it), and
	// refusedFrom is the oldest release that makes them: the older
	// releases run the configuration.
	limited     int
	refusedFrom release
	// unchecked holds what the check could not judge (check_unknown.go).
	unchecked unchecked
	// Scratch lists of declarations, reused from directive to directive
	// (a child block is checked once they are no longer needed).
	bufActive, bufHere, bufFit []directiveEntry
	// enums holds the values words found for each list of an enum or
	// bit mask's values, read once a run rather than once a directive.
	enums map[string][]string
}

// Check reports, as nginx-syntax errors, the directives nginx -t refuses
// for target: unknown directives (with a suggestion), directives in a
// context that does not allow them, wrong argument counts, values the
// generic handlers refuse (times, sizes, numbers, flags, enums, bit
// masks), duplicates, and a few checks of specific handlers (listen ports
// and parameters, "proxy_pass" with a URI where it cannot have one,
// "keepalive"). What needs the machine (DNS, certificates, users, files)
// is not checked. When it finds an error, the configuration is marked as
// not readable (Syntax), as for the reader's errors.
//
// For a fragment, whose context is only inferred, the top level may be
// any context: only a directive allowed nowhere there is refused.
func (c *Config) Check(target model.Target, custom []CustomDirective) {
	top := ctxAll
	if c.Context == "main" {
		top = ctxMain
	}
	c.checkIn(top, target, custom)
}

// checkIn checks a configuration whose main file's top level is in one of
// the contexts top.
func (c *Config) checkIn(top context, target model.Target, custom []CustomDirective) {
	if c.Main == nil {
		return
	}
	ch := &checker{target: target, custom: map[string]CustomDirective{}}
	ch.release = newestRelease
	if !target.Version.IsZero() {
		v := target.Version
		ch.release = releaseOf(v.Major, v.Minor, v.Patch)
	}
	for _, d := range custom {
		ch.custom[d.Name] = d
	}
	ch.unchecked.modules = loadedModules(c.Main.Directives)
	syntaxAt := -1
	for i, d := range c.Diagnostics {
		if d.Fatal && d.Code == CodeSyntax {
			ch.stop, syntaxAt = d.Pos, i
			break
		}
	}
	ch.block(c.Main.Directives, top, nil)
	c.Diagnostics = append(c.Diagnostics, ch.unchecked.notes()...)
	if len(ch.diags) == 0 {
		return
	}
	if ch.limited == len(ch.diags) && syntaxAt < 0 && len(ch.diags) < maxCheckErrors {
		// Only the newer releases of the range refuse the configuration:
		// the refusals stay errors, for those releases, and the
		// configuration is linted for the older ones, which run it.
		r := ch.refusedFrom
		c.RefusedFrom = model.Version{Major: int(r / 1_000_000), Minor: int(r / 1_000 % 1_000), Patch: int(r % 1_000)}
		for _, d := range ch.diags {
			d.Fatal = false
			d.Message = strings.Replace(d.Message, "older releases accept it)", fmt.Sprintf("older releases accept it, and the configuration was linted for them: %s before %s)", target, c.RefusedFrom), 1)
			c.Diagnostics = append(c.Diagnostics, d)
		}
		return
	}
	c.Syntax = true
	if syntaxAt < 0 {
		c.Diagnostics = append(c.Diagnostics, ch.diags...)
		return
	}
	out := make([]model.Diagnostic, 0, len(c.Diagnostics)+len(ch.diags))
	out = append(out, c.Diagnostics[:syntaxAt]...)
	out = append(out, ch.diags...)
	c.Diagnostics = append(out, c.Diagnostics[syntaxAt:]...)
}

// blockScope is what the check knows about the block it is in.
type blockScope struct {
	// location is the nearest enclosing location directive.
	location *Directive
	// seen holds the directives of a generic handler met in this block,
	// for "is duplicate": in a list while there are few (most blocks
	// hold a handful, and a map for each cost 2% of the bytes a run
	// allocates), then in seenSet.
	seen    []string
	seenSet map[string]bool
}

// smallSeen is how many names seen holds before seenSet takes them.
const smallSeen = 16

// sawBefore reports whether name was met in this block, and notes it.
func (sc *blockScope) sawBefore(name string) bool {
	if sc.seenSet != nil {
		if sc.seenSet[name] {
			return true
		}
		sc.seenSet[name] = true
		return false
	}
	if slices.Contains(sc.seen, name) {
		return true
	}
	if len(sc.seen) < smallSeen {
		sc.seen = append(sc.seen, name)
		return false
	}
	sc.seenSet = make(map[string]bool, 2*smallSeen)
	for _, n := range sc.seen {
		sc.seenSet[n] = true
	}
	sc.seenSet[name] = true
	sc.seen = nil
	return false
}

// block checks the directives of one block, whose context is one of ctxs,
// with the files included in it.
func (ch *checker) block(dirs []*Directive, ctxs context, location *Directive) {
	sc := &blockScope{location: location}
	ch.directives(dirs, ctxs, sc)
}

func (ch *checker) directives(dirs []*Directive, ctxs context, sc *blockScope) {
	for _, d := range dirs {
		if ch.stopped {
			return
		}
		if ch.stop.IsValid() && d.Pos.File == ch.stop.File && ch.stop.Before(d.Pos) {
			ch.stopped = true
			return
		}
		ch.directive(d, ctxs, sc)
	}
}

// terminator is where nginx reports an error about d: the line of the ";"
// or "{" that ends it. The position is d's own (or at's) when it is on
// that line.
func (ch *checker) report(d *Directive, at model.Pos, msg string) {
	end := d.End()
	if d.IsBlock() {
		end = d.BlockPos()
	}
	pos := at
	if !pos.IsValid() {
		pos = d.Pos
	}
	if end.IsValid() && pos.Line != end.Line {
		msg = fmt.Sprintf("%s (line %d)", msg, pos.Line)
		pos = end
	}
	ch.diags = append(ch.diags, model.Diagnostic{
		Code: CodeSyntax, Severity: model.Error, Pos: pos, Message: msg, Fatal: true,
	})
	if len(ch.diags) == maxCheckErrors {
		ch.stopped = true
	}
}

// tooLong reports a time nginx accepts but proxylint cannot count (more
// than about 292 years, what parseTime reads as uncounted): the durations
// the rules add up from it would overflow, so the configuration is not
// linted (the run exits 2) rather than linted with a wrong value.
func (ch *checker) tooLong(d *Directive, arg Arg) bool {
	ch.diags = append(ch.diags, model.Diagnostic{
		Code: CodeLoad, Severity: model.Error, Pos: d.PosOf(arg), Fatal: true,
		Message: fmt.Sprintf("%q directive value %q is longer than proxylint can count (about 292 years): nginx accepts it, but the timeouts it adds up to cannot be linted; write a shorter time (nothing waits that long)", d.Name, clipValue(arg.Value)),
	})
	if len(ch.diags) == maxCheckErrors {
		ch.stopped = true
	}
	return false
}

// clipValue cuts a value a message repeats to a few hundred bytes.
func clipValue(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// maxCheckErrors bounds the errors reported for one configuration: nginx
// stops at the first, and a file of a foreign format would give one per
// line.
const maxCheckErrors = 50

// active reports whether a declaration is in the target release.
func (ch *checker) active(e directiveEntry) bool {
	if e.spec.module != "" {
		return true
	}
	return (e.spec.since == 0 || e.spec.since <= ch.release) && (e.spec.until == 0 || ch.release < e.spec.until)
}

func (ch *checker) directive(d *Directive, ctxs context, sc *blockScope) {
	if cd, ok := ch.custom[d.Name]; ok {
		ch.customDirective(d, cd, ctxs)
		return
	}
	decls := declarations(d.Name)
	active := ch.bufActive[:0]
	for _, e := range decls {
		if ch.active(e) {
			active = append(active, e)
		}
	}
	if len(active) == 0 {
		if ch.target.Product == model.Angie {
			return // Angie's own directives are not in the tables
		}
		if (len(decls) == 0 || plusDirectives[d.Name]) && ch.skipUnknown(d) {
			return
		}
		msg, from := ch.unknown(d.Name, decls)
		if from != 0 {
			ch.reportLimited(d, msg, from)
			return
		}
		ch.report(d, model.Pos{}, msg)
		return
	}
	ch.bufActive = active
	here := ch.bufHere[:0]
	for _, e := range active {
		if e.spec.contexts&(ctxs|ctxAny) != 0 {
			here = append(here, e)
		}
	}
	if len(here) == 0 {
		ch.report(d, model.Pos{}, fmt.Sprintf("%q directive is not allowed here", d.Name))
		return
	}
	// The statement the reader stopped at (it has no terminator): the
	// reader's error comes before any check of the arguments.
	term := d.End()
	if d.BlockPos().IsValid() {
		term = d.BlockPos()
	}
	if !term.IsValid() {
		return
	}
	ch.bufHere = here
	fit := ch.bufFit[:0]
	for _, e := range here {
		if argsFit(e.spec.args, len(d.Args)) {
			fit = append(fit, e)
		}
	}
	if len(fit) == 0 {
		ch.report(d, model.Pos{}, fmt.Sprintf("invalid number of arguments in %q directive", d.Name))
		return
	}
	ch.bufFit = fit
	// Where the context is uncertain (the top of a fragment), declarations
	// that read values differently leave the values unchecked.
	same := true
	for _, e := range fit[1:] {
		same = same && e.spec.kind == fit[0].spec.kind && e.spec.words == fit[0].spec.words
	}
	if same && !ch.value(d, fit[0], ctxs, sc) {
		return
	}
	var child context
	if d.Block != nil {
		for _, b := range blockContexts {
			if b.name == d.Name {
				for _, e := range here {
					if e.spec.blockIn&ctxs&b.parent != 0 {
						child |= b.child
					}
				}
			}
		}
	}
	for _, inc := range d.Included() {
		ch.directives(inc.Directives, ctxs, sc)
	}
	if d.Block == nil || child == 0 {
		return // the contents are the module's data
	}
	loc := sc.location
	if d.Name == "location" {
		loc = d
	}
	ch.block(d.Block, child, loc)
}

// unknown says that nginx does not know name, with a suggestion. When
// only the newer releases of a target range refuse it (nginx removed it
// inside the range), it also returns the release that removed it.
func (ch *checker) unknown(name string, decls []directiveEntry) (string, release) {
	msg := fmt.Sprintf("unknown directive %q", name)
	if len(decls) > 0 {
		e := decls[0]
		switch {
		case e.spec.until != 0 && ch.release >= e.spec.until:
			if m := ch.target.Min; ch.target.IsRange() && releaseOf(m.Major, m.Minor, m.Patch) < e.spec.until {
				// Part of the target still accepts it: say for which
				// releases the error holds.
				return fmt.Sprintf("%s on nginx %s and newer, which removed it (target %s: older releases accept it)", msg, e.spec.until, ch.target), e.spec.until
			}
			return fmt.Sprintf("%s: nginx removed it in %s (target %s)", msg, e.spec.until, ch.target), 0
		case e.spec.since != 0:
			return fmt.Sprintf("%s: nginx added it in %s (target %s)", msg, e.spec.since, ch.target), 0
		}
	}
	names := make([]string, 0, len(knownDirectiveList)+len(ch.custom))
	for _, e := range knownDirectiveList {
		if ch.active(e) && (len(names) == 0 || names[len(names)-1] != e.name) {
			names = append(names, e.name)
		}
	}
	for n := range ch.custom {
		names = append(names, n)
	}
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	if s := suggest.Nearest(name, names, limit); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else {
		msg += " (if a module declares it, declare it under \"directives\" in .proxylint.yaml)"
	}
	return msg, 0
}

// reportLimited records a refusal of the releases of the target range
// from `from` on.
func (ch *checker) reportLimited(d *Directive, msg string, from release) {
	ch.report(d, model.Pos{}, msg)
	ch.limited++
	if ch.refusedFrom == 0 || from < ch.refusedFrom {
		ch.refusedFrom = from
	}
}

func (ch *checker) customDirective(d *Directive, cd CustomDirective, ctxs context) {
	if len(cd.Contexts) > 0 {
		var allowed context
		for _, c := range cd.Contexts {
			allowed |= customContexts[c]
		}
		if allowed&ctxs == 0 {
			ch.report(d, model.Pos{}, fmt.Sprintf("%q directive is not allowed here", d.Name))
			return
		}
	}
	if n := len(d.Args); n < cd.MinArgs || (cd.MaxArgs >= 0 && n > cd.MaxArgs) {
		ch.report(d, model.Pos{}, fmt.Sprintf("invalid number of arguments in %q directive", d.Name))
	}
}

// argsFit follows the argument count check of ngx_conf_handler.
func argsFit(a argCount, n int) bool {
	switch {
	case a&argAny != 0:
		return true
	case a&argFlag != 0:
		return n == 1
	case a&arg1More != 0:
		return n >= 1
	case a&arg2More != 0:
		return n >= 2
	case n > 7:
		return false
	}
	return a&(argNone<<n) != 0
}

// value checks the arguments the way the declaration's handler reads
// them; it reports false when it reported an error.
func (ch *checker) value(d *Directive, e directiveEntry, ctxs context, sc *blockScope) bool {
	bad := func(i int, msg string) bool {
		ch.report(d, d.ArgPos(i), msg)
		return false
	}
	switch e.spec.kind {
	case kindFlag, kindMsec, kindSec, kindSize, kindOff, kindNum, kindEnum:
		if sc.sawBefore(d.Name) {
			ch.report(d, model.Pos{}, fmt.Sprintf("%q directive is duplicate", d.Name))
			return false
		}
	}
	if len(d.Args) == 0 {
		return true
	}
	v := d.Args[0].Value
	switch e.spec.kind {
	case kindFlag:
		if !strings.EqualFold(v, "on") && !strings.EqualFold(v, "off") {
			return bad(0, fmt.Sprintf("invalid value %q in %q directive, it must be \"on\" or \"off\"", v, d.Name))
		}
	case kindMsec:
		t, err := parseTime(v)
		if err != nil {
			return bad(0, fmt.Sprintf("%q directive invalid value %q: not a time (units ms, s, m, h, d, w, as in \"30s\" or \"1m30s\")", d.Name, v))
		}
		if t == uncounted {
			return ch.tooLong(d, d.Args[0])
		}
	case kindSec:
		if !validSeconds(v) {
			return bad(0, fmt.Sprintf("%q directive invalid value %q: not a time in seconds (units s, m, h, d, w, M, y, as in \"30s\" or \"1h\")", d.Name, v))
		}
	case kindSize:
		if !validSize(v, "kKmM") {
			return bad(0, fmt.Sprintf("%q directive invalid value %q: not a size (a number with an optional k or m, as in \"8k\")", d.Name, v))
		}
	case kindOff:
		if !validSize(v, "kKmMgG") {
			return bad(0, fmt.Sprintf("%q directive invalid value %q: not a size (a number with an optional k, m or g, as in \"1m\")", d.Name, v))
		}
	case kindNum:
		if !validNumber(v) {
			return bad(0, fmt.Sprintf("%q directive invalid value %q: not a number", d.Name, v))
		}
	case kindEnum, kindBitmask:
		words := ch.words(e)
		for i, a := range d.Args {
			if !containsFold(words, a.Value) {
				return bad(i, fmt.Sprintf("invalid value %q in %q directive (allowed: %s)", a.Value, d.Name, strings.Join(words, ", ")))
			}
			if e.spec.kind == kindEnum {
				break
			}
		}
	case kindOther:
		if e.spec.module == "" {
			return ch.special(d, ctxs, sc)
		}
	}
	return true
}

// words are the values of an enum or bit mask in the target release.
func (ch *checker) words(e directiveEntry) []string {
	if out, ok := ch.enums[e.spec.words]; ok {
		return out
	}
	out := ch.releaseWords(e)
	if ch.enums == nil {
		ch.enums = map[string][]string{}
	}
	ch.enums[e.spec.words] = out
	return out
}

// releaseWords is words, read from the declaration.
func (ch *checker) releaseWords(e directiveEntry) []string {
	var out []string
	for _, w := range strings.Fields(e.spec.words) {
		name, since, ok := strings.Cut(w, "@")
		if ok {
			if v, err := model.ParseVersion(since); err == nil && ch.release < releaseOf(v.Major, v.Minor, v.Patch) {
				continue
			}
		}
		out = append(out, name)
	}
	return out
}

func containsFold(words []string, w string) bool {
	for _, x := range words {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// special checks handlers of nginx's own that proxylint reads values of.
func (ch *checker) special(d *Directive, ctxs context, sc *blockScope) bool {
	switch d.Name {
	case "keepalive":
		if ctxs&ctxHTTPUpstream == 0 {
			return true
		}
		v := d.Args[0].Value
		n := -1
		if validNumber(v) {
			n, _ = strconv.Atoi(v)
		}
		if n < 0 || (n == 0 && ch.release < releaseOf(1, 29, 7)) {
			ch.report(d, d.ArgPos(0), fmt.Sprintf("invalid value %q in \"keepalive\" directive", v))
			return false
		}
	case "keepalive_timeout":
		// ngx_http_core_keepalive: a time, then the Keep-Alive header's
		// time in seconds.
		t, err := parseTime(d.Args[0].Value)
		if err != nil {
			ch.report(d, d.ArgPos(0), fmt.Sprintf("%q directive invalid value %q: not a time (units ms, s, m, h, d, w, as in \"30s\" or \"1m30s\")", d.Name, d.Args[0].Value))
			return false
		}
		if t == uncounted {
			return ch.tooLong(d, d.Args[0])
		}
		if len(d.Args) > 1 && !validSeconds(d.Args[1].Value) {
			ch.report(d, d.ArgPos(1), fmt.Sprintf("%q directive invalid value %q: not a time in seconds (units s, m, h, d, w, M, y, as in \"30s\" or \"1h\")", d.Name, d.Args[1].Value))
			return false
		}
	case "worker_connections":
		if v := d.Args[0].Value; !validNumber(v) {
			ch.report(d, d.ArgPos(0), fmt.Sprintf("invalid number %q in \"worker_connections\" directive", v))
			return false
		}
	case "proxy_pass":
		if ctxs&(ctxHTTPLocation|ctxHTTPLocationIf|ctxHTTPLimitExcept) == 0 {
			return true
		}
		if !hasURIPart(d.Args[0].Value) {
			return true
		}
		noname := ctxs&(ctxHTTPLocationIf|ctxHTTPLimitExcept) != 0 && ctxs&ctxHTTPLocation == 0
		if l := sc.location; l != nil && len(l.Args) > 0 {
			if a := l.Args[0].Value; a == "~" || a == "~*" || strings.HasPrefix(a, "@") {
				noname = true
			}
		}
		if noname {
			ch.report(d, d.ArgPos(0), "\"proxy_pass\" cannot have URI part in location given by regular expression, or inside named location, or inside \"if\" statement, or inside \"limit_except\" block")
			return false
		}
	case "listen":
		if ctxs&(ctxHTTPServer|ctxStreamServer) == 0 {
			return true
		}
		if msg := checkListenAddress(d.Args[0].Value); msg != "" {
			ch.report(d, d.ArgPos(0), msg)
			return false
		}
		if ctxs&ctxHTTPServer != 0 && ctxs&ctxStreamServer == 0 {
			for _, a := range d.Args[1:] {
				if !ch.httpListenParam(a.Value) {
					ch.report(d, d.PosOf(a), fmt.Sprintf("invalid parameter %q", a.Value))
					return false
				}
			}
		}
	}
	return true
}

// hasURIPart reports whether a proxy_pass URL without variables names a
// URI after its host, as ngx_http_proxy_pass reads it.
func hasURIPart(u string) bool {
	if strings.Contains(u, "$") {
		return false
	}
	rest, ok := strings.CutPrefix(strings.ToLower(u), "http://")
	if !ok {
		rest, ok = strings.CutPrefix(strings.ToLower(u), "https://")
	}
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "unix:") {
		return strings.Contains(rest[5:], ":")
	}
	return strings.Contains(rest, "/")
}

// checkListenAddress checks the port of a listen address as ngx_parse_url
// does; host names are left to the machine.
func checkListenAddress(s string) string {
	if strings.HasPrefix(s, "unix:") {
		return ""
	}
	port := ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return fmt.Sprintf("invalid IPv6 address in %q of the \"listen\" directive", s)
		}
		if rest := s[end+1:]; rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return fmt.Sprintf("invalid host in %q of the \"listen\" directive", s)
			}
			port = rest[1:]
		}
	case strings.Contains(s, ":"):
		port = s[strings.LastIndexByte(s, ':')+1:]
	case validNumber(s):
		port = s
	}
	if port == "" && !strings.HasSuffix(s, ":") {
		return ""
	}
	if n, err := strconv.Atoi(port); err != nil || !validNumber(port) || n < 1 || n > 65535 {
		return fmt.Sprintf("invalid port in %q of the \"listen\" directive", s)
	}
	return ""
}

// httpListenParam reports whether ngx_http_core_listen knows a parameter.
func (ch *checker) httpListenParam(p string) bool {
	name, _, hasValue := strings.Cut(p, "=")
	at := func(major, minor, patch int) bool {
		return ch.release >= releaseOf(major, minor, patch)
	}
	switch name {
	case "default_server", "default", "bind", "deferred", "reuseport", "ssl", "http2", "proxy_protocol":
		return !hasValue
	case "quic":
		return !hasValue && at(1, 25, 0)
	case "spdy":
		return !hasValue && !at(1, 9, 5)
	case "setfib", "fastopen", "backlog", "rcvbuf", "sndbuf", "accept_filter", "ipv6only", "so_keepalive":
		return hasValue
	}
	return false
}

// validSeconds reads a time as ngx_parse_time does for second values:
// units y, M, w, d, h, m, s in decreasing order, no milliseconds.
func validSeconds(s string) bool {
	order := "yMwdhms "
	step, valid := -1, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			valid = true
			continue
		}
		if c == 'm' && i+1 < len(s) && s[i+1] == 's' {
			return false
		}
		k := strings.IndexByte(order, c)
		if k < 0 || k <= step && c != ' ' || c == ' ' && step >= 6 {
			return false
		}
		step = k
		for i+1 < len(s) && s[i+1] == ' ' {
			i++
		}
	}
	if !valid {
		return false
	}
	// The total must fit; times beyond 2^63 seconds are not written.
	return len(s) < 19
}

// validSize reads a size as ngx_parse_size and ngx_parse_offset do: a
// decimal number with an optional unit among units.
func validSize(s, units string) bool {
	if s == "" {
		return false
	}
	if strings.IndexByte(units, s[len(s)-1]) >= 0 {
		s = s[:len(s)-1]
	}
	return validNumber(s) && len(s) < 16
}

// validNumber reads a number as ngx_atoi does: decimal digits only.
func validNumber(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
