package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// RetryTimeoutWrite flags retries that can replay a request that changes
// state after the first server may already have run it.
var RetryTimeoutWrite = &Rule{
	ID:       "retry-timeout-write",
	Summary:  "a request that may write is retried after it may already have run",
	Severity: model.Error,
	Tags:     []string{"nginx", "envoy", "retries", "correctness"},
	Requires: []*Analysis{WriteRoutes, Peers},
	Check:    checkRetryTimeoutWrite,
}

// carriedWrites are the methods whose replay the rule reports when the
// route carries them and a retry sends them again.
var carriedWrites = []string{"POST", "PATCH", "LOCK"}

// writeMethods change state on the server.
var writeMethods = map[string]bool{
	"POST": true, "PUT": true, "PATCH": true, "DELETE": true, "LOCK": true, "UNLOCK": true,
	"MKCOL": true, "COPY": true, "MOVE": true, "PROPPATCH": true,
}

func checkRetryTimeoutWrite(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		var same samePolicy
		for r := range envoyRoutes(p) {
			// Whether Envoy replays a POST depends on the route alone: its
			// cluster may be in a file the run did not read.
			if r.Forward == nil || len(r.Reexecutes) == 0 {
				continue
			}
			if f, ok := envoyReplaysWrites(r); ok {
				if p.Product.Kubernetes() {
					// Written in a resource: edited there, or, in a
					// generated manifest, where the resource is written.
					f.Fix = retryOnFix(pass, r).Or(f.Fix.Message)
				} else if gen := generatedBy(pass, f.Pos); gen != "" {
					f.Fix = writtenElsewhere(gen, f.Pos, f.Fix.Message, retriesWritten(r))
				}
				same.add(f, r)
			}
		}
		same.report(pass)
		for r := range nginxRoutes(p) {
			if r.Forward == nil || r.Forward.Upstream == nil || len(r.Reexecutes) == 0 {
				continue
			}
			if f, ok := nginxReplaysWrites(pass, r); ok {
				f.Fix = nonIdempotentFix(pass, r).Or(f.Fix.Message)
				pass.Report(f)
			} else if f, ok := writeRetriedAfterSend(pass, r); ok {
				pass.Report(f)
			}
		}
		for r := range otherRoutes(p) {
			// A proxy that is neither nginx nor Envoy (Traefik): its
			// loader says which writes its retries send again.
			if r.Forward == nil || r.Forward.Upstream == nil || len(r.Reexecutes) == 0 {
				continue
			}
			if carried, conds, _ := carriedReplays(r, envoyCarriedWrites); len(carried) > 0 {
				f := replaysWritesOnStatus(r, carried, conds)
				f.Fix = writeMethodsFix(pass, r, carried).Or(f.Fix.Message)
				pass.Report(f)
			}
		}
	}
}

// replays lists the conditions that send method m again after it was sent,
// leaving out refusals (403, 404, 409: the backend ran nothing), and
// whether one of them fires on a timed-out attempt.
func replays(r *model.Route, m string) (conds []string, timeouts []string) {
	for _, x := range r.Reexecutes {
		if !x.Methods.Allows(m) || refusal(x.Condition) {
			continue
		}
		conds = append(conds, x.Condition)
		if x.Timeout {
			timeouts = append(timeouts, x.Condition)
		}
	}
	return conds, timeouts
}

// refusal reports whether a condition fires on a response saying the
// request was refused, so a retry runs nothing twice.
func refusal(c string) bool {
	switch c {
	case "http_403", "http_404", "retriable-4xx":
		return true
	}
	return false
}

// carriedReplays lists the methods of methods that route r carries and
// a retry sends again after the upstream may have run them, with the
// conditions that do (and those of them that fire on a timed-out try).
func carriedReplays(r *model.Route, methods []string) (carried, conds, timeouts []string) {
	for _, m := range methods {
		if !r.Methods.Allows(m) {
			continue
		}
		c, t := replays(r, m)
		if len(c) == 0 {
			continue
		}
		carried, conds, timeouts = append(carried, m), c, t
	}
	return carried, conds, timeouts
}

// envoyCarriedWrites are the carried writes named on Envoy and Traefik
// routes, which are rarely WebDAV: the common ones.
var envoyCarriedWrites = []string{"POST", "PATCH"}

// nginxReplaysWrites: proxy_next_upstream ... non_idempotent sends POST,
// PATCH or LOCK again after the upstream may have run it, on a location
// that carries them.
func nginxReplaysWrites(pass *Pass, r *model.Route) (Finding, bool) {
	carried, conds, _ := carriedReplays(r, carriedWrites)
	if len(carried) == 0 {
		return Finding{}, false
	}
	on := r.Retry.On
	u := r.Forward.Upstream
	n, exact := pass.peers(u)
	f := Finding{
		Pos: on.Pos(),
		Message: fmt.Sprintf("%s %s replays %s requests: after %s the request may already have run, and nginx sends it again %s, so one order or payment can be executed twice.",
			on.Name(), strings.Join(on.Value, " "), quoteList(carried), quoteList(conds), sentAgainTo(r, u, n, exact)),
		Related: routeRelated(r, on.Pos()),
		Fix: Advice(fmt.Sprintf("remove non_idempotent from %s (nginx then retries a %s only when it was never sent), "+
			"or make the backend deduplicate with an idempotency key", on.Name(), carried[0])),
	}
	if why, ok := nonIdempotentElsewhere(r); ok {
		// Another setting adds non_idempotent (ingress-nginx's ConfigMap
		// retry-non-idempotent): it is what to change.
		f.Related = append(f.Related, Related{Pos: why.Pos(), Message: why.Source() + " \"true\" adds non_idempotent to " + on.Name()})
		f.Fix = Advice(fmt.Sprintf("set %s to \"false\" (nginx then retries a %s only when it was never sent), "+
			"or make the backend deduplicate with an idempotency key", why.Source(), carried[0]))
	}
	for _, x := range r.Reexecutes {
		if m := x.Methods; m.AlsoSource() != "" && m.AlsoPos().IsValid() {
			f.Related = append(f.Related, Related{Pos: m.AlsoPos(), Message: m.AlsoSource() + " \"true\" adds non_idempotent to " + on.Name() + " too: removed there alone, it comes back"})
			break
		}
	}
	return f, true
}

// nonIdempotentElsewhere returns the setting that lets a route's retries
// send writes again when it is not the setting of its retry conditions.
func nonIdempotentElsewhere(r *model.Route) (model.Methods, bool) {
	for _, x := range r.Reexecutes {
		if m := x.Methods; m.Allows("POST") && m.Source() != "" && m.Source() != r.Retry.On.Name() && m.Pos().IsValid() {
			return m, true
		}
	}
	return model.Methods{}, false
}

// envoyReplaysWrites: a retry policy that sends POST or PATCH again after
// the upstream may have run it, on a route that carries them.
func envoyReplaysWrites(r *model.Route) (Finding, bool) {
	carried, conds, timeouts := carriedReplays(r, envoyCarriedWrites)
	if len(carried) == 0 {
		return Finding{}, false
	}
	on := r.Retry.On
	what := "whose response was lost"
	if len(timeouts) == 0 && !resetsRetried(r, conds) {
		// Only answers are retried (retriable-status-codes, gRPC
		// statuses): the upstream may have run the request before it
		// answered 503.
		what = "that the upstream answered with a status the policy retries, possibly after running it,"
	}
	msg := fmt.Sprintf("%s retries %s after the upstream may already have received it: "+
		"Envoy checks no idempotency, so a %s %s is sent again (a second order, a second charge).",
		settingText(on, strings.Join(on.Value, ",")), quoteList(carried), carried[0], what)
	if on.Default() && on.Note() != "" {
		msg += " The policy is " + on.Note() + "."
	}
	if len(timeouts) > 0 {
		msg += " A per-try timeout counts as a reset under " + quoteList(timeouts) + ", so a slow response is replayed too."
	}
	why := "the route has no :method matcher, so it carries every method"
	switch {
	case r.Methods.Why() != "":
		why = r.Methods.Why()
	case !r.Methods.Any:
		why = "its :method matcher lets " + quoteList(carried) + " through"
	}
	related := []Related{{Pos: r.Pos, Message: routeName(r) + ": " + why}}
	if ma := r.MaxAttempts; ma.Pos() != on.Pos() {
		related = append(related, Related{Pos: ma.Pos(), Message: settingText(ma, fmt.Sprint(ma.Value-1))})
	}
	return Finding{
		Pos:     on.Pos(),
		Message: msg,
		Related: related,
		Fix:     Advice(safeRetryFix(r.Retry)),
	}, true
}

// replaysWritesOnStatus: a proxy that is neither nginx nor Envoy
// (Traefik) retries a write on a status the backend answered; its loader
// says in the re-executions' methods what makes it send writes again.
func replaysWritesOnStatus(r *model.Route, carried, conds []string) Finding {
	on := r.Retry.On
	var why model.Methods
	for _, x := range r.Reexecutes {
		if x.Methods.Allows(carried[0]) {
			why = x.Methods
			break
		}
	}
	msg := fmt.Sprintf("%s retries %s when the backend answers %s, which it may send after it ran the request", on.Name(), quoteList(carried), quoteList(conds))
	if why.Why() != "" {
		msg += ": " + why.Why()
	}
	msg += fmt.Sprintf(", so a %s is sent again (a second order, a second charge).", carried[0])
	related := []Related{{Pos: r.Pos, Message: routeName(r) + ": " + carriedWhy(r, carried)}}
	if why.Pos().IsValid() && why.Pos() != on.Pos() {
		related = append(related, Related{Pos: why.Pos(), Message: why.Source() + " is set here"})
	}
	if ma := r.MaxAttempts; ma.Pos().IsValid() && ma.Pos() != on.Pos() {
		related = append(related, Related{Pos: ma.Pos(), Message: settingText(ma, fmt.Sprint(ma.Value))})
	}
	fix := "retry only requests that are safe to repeat"
	if why.Source() != "" && why.Source() != on.Name() {
		fix = "remove " + why.Source() + ", so that a " + carried[0] + " is retried only when it never reached the backend"
	}
	return Finding{Pos: on.Pos(), Message: msg, Related: related, Fix: Advice(fix + ", or make the backend deduplicate with an idempotency key")}
}

// carriedWhy says why a route carries the writes named.
func carriedWhy(r *model.Route, carried []string) string {
	switch {
	case r.Methods.Why() != "":
		return r.Methods.Why()
	case !r.Methods.Any:
		return "it lets " + quoteList(carried) + " through (" + r.Methods.Source() + ")"
	}
	return "it matches every method"
}

// retriesWritten says where the retry policy of a route of a generated
// Envoy configuration is written.
func retriesWritten(r *model.Route) string {
	if istioRoute(r) {
		return "in Istio: the VirtualService's http[].retries.retryOn, or meshConfig.defaultHttpRetryPolicy for the default istiod writes into every route"
	}
	return "in the bootstrap or in the control plane that serves this Envoy (Istio: a VirtualService's retries.retryOn or meshConfig.defaultHttpRetryPolicy; Envoy Gateway: a BackendTrafficPolicy's retry.retryOn.triggers)"
}

// safeRetryFix words the fix in the terms of the setting that holds the
// retry conditions, and offers to narrow retries to safe methods where the
// configuration can say so.
func safeRetryFix(rt model.Retry) string {
	on := rt.On
	// reset-before-request is in newer releases' validation only (Istio
	// 1.24, Contour's enum and Envoy Gateway's later): an older one
	// refuses the resource that names it.
	const newer = "; reset-before-request too where the release accepts it"
	if on.Default() {
		return "give the route a retry policy that retries only what never reached the upstream " +
			"(connect-failure, refused-stream" + newer + "), or none"
	}
	value := "connect-failure,refused-stream"
	switch rt.OnShape {
	case model.WordsInList:
		value = "[connect-failure, refused-stream]"
	case model.WordsInTriggers:
		value = "{triggers: [connect-failure, refused-stream]}"
	}
	fix := "retry only what never reached the upstream (" + on.Name() + ": " + value + newer + ")"
	if rt.MethodFilter != "" {
		fix += ", or limit retries to safe methods with " + rt.MethodFilter + ": [{name: \":method\", string_match: {safe_regex: {regex: \"GET|HEAD|OPTIONS\"}}}]"
	}
	return fix
}

// writeRetriedAfterSend: a location that writes, whose retries send PUT,
// DELETE or another write method again after it was sent (on a timeout,
// or on a connection closed before the response). nginx retries any
// method but POST, PATCH and LOCK then, even without non_idempotent, and
// decides by the client's method, not the one proxy_method sends.
func writeRetriedAfterSend(pass *Pass, r *model.Route) (Finding, bool) {
	why := writeReason(pass, r)
	if why == "" {
		return Finding{}, false
	}
	var retried []string
	timeout := false
	for _, x := range r.Reexecutes {
		if refusal(x.Condition) || x.Response {
			continue
		}
		retried = append(retried, x.Condition)
		timeout = timeout || x.Timeout
	}
	if len(retried) == 0 {
		return Finding{}, false
	}
	when, after := "on timeout", "that timed out after the backend received it"
	if !timeout {
		when, after = "when the connection fails after the request was sent", "whose connection closed after the backend received it"
	}
	reexec := r.Reexecutes[0].Methods
	var replayed string
	switch um := r.Nginx.UpstreamMethod; {
	case um.Valid() && (um.Value == "POST" || um.Value == "PATCH") && canCarryRetried(r, reexec):
		replayed = fmt.Sprintf("%s %s sends every request upstream as %s, but nginx decides on retries by the client's method, so a GET %s is sent as a second %s", um.Name(), um.Value, um.Value, strings.TrimPrefix(after, "that "), um.Value)
		if timeout {
			replayed = fmt.Sprintf("%s %s sends every request upstream as %s, but nginx decides on retries by the client's method, so a GET that timed out is sent as a second %s", um.Name(), um.Value, um.Value, um.Value)
		}
	case r.Methods.Any:
		var ms []string
		for _, m := range []string{"PUT", "DELETE"} {
			if reexec.Allows(m) && r.Methods.Allows(m) {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return Finding{}, false
		}
		replayed = fmt.Sprintf("a %s %s is sent again", strings.Join(ms, " or "), after)
	default:
		var ms []string
		for _, m := range r.Methods.Allowed {
			if reexec.Allows(m) && writeMethods[m] {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return Finding{}, false
		}
		replayed = fmt.Sprintf("a %s %s is sent again", strings.Join(ms, " or "), after)
	}
	on := r.Retry.On
	u := r.Forward.Upstream
	n, exact := pass.peers(u)
	f := Finding{
		Severity: model.Warning,
		Pos:      on.Pos(),
		Message: fmt.Sprintf("%s %s, and %s retries %s: %s %s.",
			routeName(r), why, settingText(on, strings.Join(on.Value, " ")), when, replayed, sentAgainTo(r, u, n, exact)),
		Related: routeRelated(r, on.Pos()),
		Fix:     Advice(fmt.Sprintf("stop retries in this location (%s off;), or make the backend deduplicate with an idempotency key", on.Name())),
	}
	return f, true
}

// canCarryRetried reports whether a client method that the retries send
// again can reach the route.
func canCarryRetried(r *model.Route, reexec model.Methods) bool {
	if r.Methods.Any {
		return true
	}
	for _, m := range r.Methods.Allowed {
		if reexec.Allows(m) {
			return true
		}
	}
	return false
}

// WriteRoutes is the analysis of which nginx routes change state: for
// each route taken to write, why (a "# proxylint:write" mark, the
// methods it carries or sends upstream, the application's catch-all
// location, a path that matches the write-path patterns). Its result is a
// map[*model.Route]string.
var WriteRoutes = &Analysis{Name: "write routes", Run: writeRoutes}

func writeRoutes(a *AnalysisPass) any {
	paths := a.WritePaths()
	out := map[*model.Route]string{}
	for _, p := range a.Model.Proxies {
		for r := range nginxRoutes(p) {
			if why := writeReasonOf(r, paths); why != "" {
				out[r] = why
			}
		}
	}
	return out
}

// writeReason says why a route is taken to change state, or "" (the
// WriteRoutes analysis, which the rule requires).
func writeReason(pass *Pass, r *model.Route) string {
	return pass.ResultOf(WriteRoutes).(map[*model.Route]string)[r]
}

// writeReasonOf says why a route is taken to change state, or "".
func writeReasonOf(r *model.Route, writePaths []*regexp.Regexp) string {
	for _, a := range r.Annotations {
		if a.Name == "write" {
			return "is marked # proxylint:write"
		}
	}
	if um := r.Nginx.UpstreamMethod; um.Valid() && (um.Value == "POST" || um.Value == "PATCH") {
		return "sends " + um.Value + " upstream (" + um.Name() + ")"
	}
	// The methods the configuration lets through decide before the path
	// does: a route that carries only GET and HEAD reads, whatever its
	// path says, and one that carries POST writes.
	if ms := r.Methods; !ms.Any {
		var writes []string
		for _, m := range ms.Allowed {
			if writeMethods[m] {
				writes = append(writes, m)
			}
		}
		switch {
		case len(writes) == 0:
			return ""
		case len(writes) == len(ms.Allowed):
			return "allows only " + quoteList(ms.Allowed) + " (" + ms.Source() + ")"
		}
		return "allows " + quoteList(writes) + " (" + ms.Source() + ")"
	}
	if ms := r.Methods; ms.Source() != "" {
		writes := false
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			writes = writes || ms.Allows(m)
		}
		if !writes {
			return ""
		}
	}
	if why := catchAll(r); why != "" {
		return why
	}
	if p := r.Match.Path; p != "" {
		for _, re := range writePaths {
			if re.MatchString(p) {
				return "looks like it writes (its path matches the write-path patterns)"
			}
		}
	}
	return ""
}

// catchAll says why a route that carries every method takes an
// application's writes, or "": it is the named location that "location /"
// sends every request to that no file answers (try_files $uri @app, the
// way an application server sits behind its static files), so every
// dynamic request of the site, its PUTs and DELETEs among them, reaches
// the application through it.
func catchAll(r *model.Route) string {
	if r.Match.Kind != model.MatchNamed || !r.Methods.Any || r.Methods.Source() != "" || r.Listener == nil {
		return ""
	}
	for _, l := range r.Listener.Routes {
		if l.Kind == "location" && l.Match.Kind == model.MatchPrefix && l.Match.Path == "/" && l.Parent == nil &&
			l.Nginx != nil && l.Nginx.NamedFallback.Value == r.Match.Path {
			return fmt.Sprintf("takes every request of location / that no file answers (%s), so the application's writes reach it", l.Nginx.NamedFallback.Name()+" ... "+r.Match.Path)
		}
	}
	return ""
}

// routeRelated points at the route when the finding is elsewhere.
func routeRelated(r *model.Route, pos model.Pos) []Related {
	if r.Pos == pos {
		return nil
	}
	return []Related{{Pos: r.Pos, Message: "in effect for " + routeName(r)}}
}

// resetsRetried reports whether one of conds retries a request whose
// connection was reset (its response lost), rather than one the upstream
// answered.
func resetsRetried(r *model.Route, conds []string) bool {
	for _, x := range r.Reexecutes {
		for _, c := range conds {
			if x.Condition == c && (!x.Response || x.Reset || x.Timeout) {
				return true
			}
		}
	}
	return false
}

// nonIdempotentFix removes non_idempotent from the retry conditions of a
// location that does not write by its path or methods (one that does is
// reported for its other retries, which this does not stop). It is
// unsafe: the author may have set non_idempotent on purpose, for a
// backend that deduplicates what it is sent again, and without it nginx
// answers a POST whose server failed with an error instead of trying the
// next server.
func nonIdempotentFix(pass *Pass, r *model.Route) Fix {
	on := r.Retry.On
	if !on.Explicit() || writeReason(pass, r) != "" {
		return Fix{}
	}
	x := newFixer(pass)
	if why, ok := nonIdempotentElsewhere(r); ok {
		x.setValue(why.Pos(), model.String("false"))
		return UnsafeFix("set "+why.Source()+" to \"false\" (for every Ingress of the controller): nginx then retries a POST, PATCH or LOCK only when it was never sent", x.result())
	}
	if f := x.sources.file(on.Pos().File); f != nil && f.Editor != nil {
		if _, tree := f.Tree(); tree {
			// An Ingress annotation, a ConfigMap key or a VirtualServer
			// upstream's next-upstream: a string of the flags.
			x.dropWord(on.Pos(), "non_idempotent")
		} else {
			x.removeArg(x.nginxStatement(on.Pos(), on.Name()), "non_idempotent")
		}
	}
	what := "remove non_idempotent from " + on.Name()
	for _, re := range r.Reexecutes {
		if m := re.Methods; m.AlsoSource() != "" && m.AlsoPos().IsValid() {
			// The ConfigMap adds the word back: both change.
			x.setValue(m.AlsoPos(), model.String("false"))
			what += " and set " + m.AlsoSource() + " to \"false\" (for every Ingress of the controller)"
			break
		}
	}
	return UnsafeFix(what+": nginx then retries a POST, PATCH or LOCK only when it was never sent", x.result())
}

// removeArg deletes the argument of s whose value is v, with the blanks
// before it; the directive must keep another argument.
func (x *fixer) removeArg(s *statement, v string) {
	if s == nil || x.failed {
		x.fail()
		return
	}
	for i, a := range s.Args {
		if a == v && len(s.Args) > 1 {
			x.take(s.ed.RemoveArg(s.Pos, i))
			return
		}
	}
	x.fail()
}

// retryOnFix narrows the retry conditions of a route a Kubernetes
// resource configures to those that fire only before the request reached
// the upstream: an Istio VirtualService's retries.retryOn (a
// comma-separated string; meshConfig.defaultHttpRetryPolicy.retryOn
// alike), a Contour HTTPProxy's retryPolicy.retryOn or an Envoy Gateway
// BackendTrafficPolicy's retry.retryOn.triggers (lists), as the loader
// says (Retry.OnShape). A retry policy
// that leaves the conditions to the product's default gets the field.
// It is unsafe for the reason removing non_idempotent is: the author may
// have chosen to retry on 5xx for a backend that deduplicates, and the
// route stops retrying a GET on a 503 too.
func retryOnFix(pass *Pass, r *model.Route) Fix {
	on := r.Retry.On
	i := strings.LastIndexByte(on.Name(), '.')
	if !on.Valid() || i < 0 {
		return Fix{}
	}
	parent, field := on.Name()[:i], on.Name()[i+1:]
	if field != "retryOn" && field != "triggers" {
		return Fix{}
	}
	v := model.String(strings.Join(safeRetryOn, ","))
	list := model.List(model.String(safeRetryOn[0]), model.String(safeRetryOn[1]))
	switch r.Retry.OnShape {
	case model.WordsInList:
		v = list
	case model.WordsInTriggers:
		// An object of triggers and status codes (Envoy Gateway's
		// retryOn), never a string.
		v = model.Map(model.F("triggers", list))
	}
	x := newFixer(pass)
	if on.Explicit() {
		x.setValue(on.Pos(), v)
	} else if ed, n := x.field(on.Pos()); ed != nil {
		// The default of a policy written without the field: the
		// policy's own mapping gets it.
		if n.Key != parent[strings.LastIndexByte(parent, '.')+1:] || n.Kind != model.MapValue {
			x.fail()
		} else {
			x.take(ed.InsertField(n.KeyPos, model.AtEnd, field, v))
		}
	}
	name := on.Name()
	if r.Retry.OnShape == model.WordsInTriggers {
		name += ".triggers"
	}
	return UnsafeFix("set "+name+" to "+strings.Join(safeRetryOn, ", ")+": Envoy then retries only what never reached the upstream (add reset-before-request where the release's validation accepts it)", x.result())
}

// safeRetryOn are Envoy's retry conditions that fire only when the
// request never reached the upstream, and that every release of the
// products' validation accepts: Istio's supportedRetryOnPolicies
// (pilot/pkg/model/validation.go, then pkg/config/validation/validation.go),
// Contour's RetryOn enum (apis/projectcontour/v1/httpproxy.go) and Envoy
// Gateway's TriggerEnum. reset-before-request is in the newer lists only,
// and an older release refuses the resource that names it.
var safeRetryOn = []string{"connect-failure", "refused-stream"}

// writeMethodsFix removes the setting that makes a route's retries send
// writes again (Traefik's retry.retryNonIdempotentMethod). Unsafe: the
// author may have turned it on for a backend that deduplicates.
func writeMethodsFix(pass *Pass, r *model.Route, carried []string) Fix {
	var why model.Methods
	for _, x := range r.Reexecutes {
		if x.Methods.Allows(carried[0]) {
			why = x.Methods
			break
		}
	}
	if why.Source() == "" || why.Source() == r.Retry.On.Name() || !why.Pos().IsValid() {
		return Fix{}
	}
	x := newFixer(pass)
	x.removeField(why.Pos())
	return UnsafeFix("remove "+why.Source()+": a "+carried[0]+" is then retried only when it never reached the backend", x.result())
}
