package rules

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// LogFormatBlind flags access log formats that cannot tell a client that
// gave up from a slow backend.
var LogFormatBlind = &Rule{
	ID:       "log-format-blind",
	Summary:  "the access log of a proxied location cannot tell a client abort from a slow backend",
	Severity: model.Note,
	Tags:     []string{"nginx", "logging", "observability"},
	Products: nginxFamily,
	Check:    checkLogFormatBlind,
}

// timingVariables are what an access log needs to tell a 499 from a slow
// upstream: how long the request took, how long the upstream took, and what
// the upstream answered.
var timingVariables = []string{"request_time", "upstream_response_time", "upstream_status"}

func checkLogFormatBlind(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		snippetLogs(pass, p)
		// The routes of a server share its access_log.
		seen := reported{}
		judged := map[sharedLogs]bool{}
		for _, r := range p.Routes() {
			if r.Forward == nil {
				continue
			}
			// A list of logs that several routes share (the routes of a
			// level that sets none of its own) is judged once: what it
			// gives depends on the list alone.
			if k, ok := logsOf(r); ok {
				if judged[k] {
					continue
				}
				judged[k] = true
			}
			if f, ok := blindLog(r, p.Context); ok {
				if !seen.first(f) {
					continue
				}
				f.Fix = logFormatFix(pass, p, r).Or(f.Fix.Message)
				pass.Report(f)
			}
		}
	}
}

// sharedLogs names one list of access logs: the routes that inherit it
// hold the same list.
type sharedLogs struct {
	first     *model.AccessLog
	n         int
	byDefault bool
}

// logsOf is the list of access logs route r holds; false when it holds
// none.
func logsOf(r *model.Route) (sharedLogs, bool) {
	v := r.AccessLogs.Value
	if len(v) == 0 {
		return sharedLogs{}, false
	}
	return sharedLogs{&v[0], len(v), r.AccessLogs.Default()}, true
}

// blindLog judges the access logs of route r of a configuration whose
// entry file's top level is in context (Proxy.Context).
func blindLog(r *model.Route, context string) (Finding, bool) {
	logs := r.AccessLogs
	for _, l := range logs.Value {
		if l.Off || (!l.Format.Builtin && l.Format.Text == "") {
			continue
		}
		missing := missingTiming(l.Format.Text)
		if len(missing) == 0 {
			continue
		}
		what := fmt.Sprintf("access_log %s (format %q)", l.Path, l.Format.Name)
		msg := ""
		if logs.Default() {
			// The default path is chosen when nginx is built
			// (--http-log-path): logs/access.log from source,
			// /var/log/nginx/access.log in distributions.
			what = fmt.Sprintf("The default access log (format %q)", l.Format.Name)
			if context != "main" {
				// The log of a fragment is its includer's, and none was
				// found: the finding rests on the stock includers.
				msg = stockLog(context, missing)
			}
		}
		if msg == "" {
			msg = fmt.Sprintf("%s has no %s: %s.", what, quoteList(missing), blindness(missing))
		}
		f := Finding{
			Pos:     l.Pos,
			Message: msg,
			Fix:     Advice(`log_format timing '$remote_addr "$request" $status $request_time ' '$upstream_addr $upstream_status $upstream_response_time $upstream_connect_time'; access_log /var/log/nginx/access.log timing;`),
		}
		if l.Format.Pos.IsValid() {
			f.Related = []Related{{Pos: l.Format.Pos, Message: fmt.Sprintf("log_format %s", l.Format.Name)}}
		}
		return f, true
	}
	return Finding{}, false
}

// snippetLogs judges the location-level snippets linted through p, a
// fragment that no configuration found includes (Proxy.Snippets): the
// locations that include a snippet there are one use, and it may be
// included elsewhere too, so a snippet that proxies and sets no
// access_log of its own gets the note it gets alone.
func snippetLogs(pass *Pass, p *model.Proxy) {
	var missing []string
	for _, v := range timingVariables {
		missing = append(missing, "$"+v)
	}
	for _, sn := range p.Snippets {
		for _, r := range p.Routes() {
			if r.Forward == nil || r.Forward.Pos.File != sn.File || r.AccessLogs.Pos().File == sn.File {
				continue
			}
			f := Finding{
				Pos:     model.Pos{File: sn.File, Line: 1, Col: 1},
				Related: []Related{{Pos: r.Pos, Message: "includes this file (" + routeName(r) + ")"}},
				Fix:     Advice("decide where the access log goes and log it with a format that has $request_time, $upstream_response_time and $upstream_status"),
			}
			switch {
			case sn.Context == "location":
				f.Message = fmt.Sprintf("This snippet sets no access_log, so what it proxies is logged by each location that includes it: %s, which was found, is one, and the configuration of the others was not found; "+
					"if one logs as %s, the log has no %s: %s.", routeName(r), stockLogs, quoteList(missing), blindness(missing))
			case r.AccessLogs.Default():
				// Neither this file nor the fragment found that
				// includes it sets one: the includer's includer does.
				f.Message = fmt.Sprintf("This file sets no access_log, nor does %s, which includes it, and no configuration found includes that: included by %s, what it proxies is logged without %s: %s.",
					filepath.Base(p.Entry), stockLogs, quoteList(missing), blindness(missing))
			default:
				continue
			}
			pass.Report(f)
			break
		}
	}
}

// stockLogs are the access logs of the nginx.conf that distributions
// install, which include the sites and conf.d files (docs/semantics.md,
// "The stock includers"): Debian's and Ubuntu's log in combined, the
// others in "main", which adds only $http_x_forwarded_for to it. Neither
// has $request_time or a $upstream_* variable.
const stockLogs = `a distribution's nginx.conf, which logs in "combined" (Debian, Ubuntu) or in "main" (the nginx image and nginx.org's packages, RHEL, Fedora, Alpine)`

// stockLog says what a fragment that sets no access_log of its own logs
// with, assuming a stock includer (none was found): a server-level
// fragment (a site of sites-available/ or conf.d/) logs with the
// includer's http-level access_log; a location-level snippet with that of
// the server or location it is included in, which may set its own.
func stockLog(context string, missing []string) string {
	if context == "location" {
		return fmt.Sprintf("This snippet sets no access_log, so what it proxies is logged by the server or location that includes it, which was not found: "+
			"if that logs as %s, the log has no %s: %s.", stockLogs, quoteList(missing), blindness(missing))
	}
	return fmt.Sprintf("This file sets no access_log, and no configuration found includes it: included by %s, what it proxies is logged without %s: %s.",
		stockLogs, quoteList(missing), blindness(missing))
}

// hasVariable reports whether format text uses $name or ${name}, not a
// longer variable that starts with name.
func hasVariable(text, name string) bool {
	if strings.Contains(text, "${"+name+"}") {
		return true
	}
	for i := 0; ; {
		j := strings.Index(text[i:], "$"+name)
		if j < 0 {
			return false
		}
		end := i + j + 1 + len(name)
		if end >= len(text) || !isVarChar(text[end]) {
			return true
		}
		i = end
	}
}

func isVarChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// missingTiming lists, as "$name", the timing variables a log format
// does not write.
func missingTiming(format string) []string {
	var missing []string
	for _, v := range timingVariables {
		if !hasVariable(format, v) {
			missing = append(missing, "$"+v)
		}
	}
	return missing
}

// blindness says what a log without the missing variables cannot tell,
// from the variables actually missing.
func blindness(missing []string) string {
	has := func(v string) bool {
		for _, m := range missing {
			if m == v {
				return true
			}
		}
		return false
	}
	var out []string
	if has("$request_time") && has("$upstream_response_time") {
		out = append(out, "a 499 does not show whether a slow backend made the client give up: neither the request's time nor the backend's is logged")
	} else if has("$request_time") {
		out = append(out, "how long each client waited is not logged")
	} else if has("$upstream_response_time") {
		out = append(out, "time spent waiting for the backend cannot be told from time spent on the client")
	}
	if has("$upstream_status") {
		out = append(out, "what the backend answered is not logged, so a 502 or 504 that nginx made cannot be told for certain from one the backend sent, nor the status of each attempt of a retried request")
	}
	return strings.Join(out, "; ")
}

// ---- the fix ----

// timingFormat is nginx's combined format with the timing of the
// upstream, as the arguments of log_format after the name.
var timingFormat = []string{
	`'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" '`,
	`'rt=$request_time uct=$upstream_connect_time urt=$upstream_response_time us=$upstream_status'`,
}

// logFormatFix adds the missing variables to the first blind access log of
// route r: to the custom format the log uses, or, for the built-in
// combined format, through a new format "timing" that the access_log
// directive names, its path kept. It is unsafe: the log's lines change,
// and what reads them (goaccess, a grok pattern, fail2ban's filters) may
// expect them as they were. Where the log goes is not known (the default
// access log), the fix is advice.
func logFormatFix(pass *Pass, p *model.Proxy, r *model.Route) Fix {
	for _, l := range r.AccessLogs.Value {
		if l.Off || (!l.Format.Builtin && l.Format.Text == "") {
			continue
		}
		missing := missingTiming(l.Format.Text)
		if len(missing) == 0 {
			continue
		}
		if r.AccessLogs.Default() {
			return Advice("decide where the access log goes and log it with a format that has $request_time, $upstream_response_time and $upstream_status")
		}
		if l.Format.Builtin {
			return UnsafeFix("log to "+l.Path+" with format timing: the combined format with $request_time, $upstream_connect_time, $upstream_response_time and $upstream_status",
				timingLogEdits(pass, p, r, l))
		}
		return UnsafeFix(fmt.Sprintf("add %s to log_format %s", quoteList(missing), l.Format.Name), formatEdits(pass, l, missing))
	}
	return Fix{}
}

// timingLogEdits point an access_log in the built-in combined format at a
// new format "timing", declared before the first server block, or before
// the access_log when that comes earlier in the same block: nginx looks a
// format up when it reads the access_log that names it.
func timingLogEdits(pass *Pass, p *model.Proxy, r *model.Route, l model.AccessLog) []Edit {
	x := newFixer(pass)
	if l.Format.Name != "combined" || timingTaken(x) {
		return nil
	}
	s := x.nginxStatement(l.Pos, "access_log")
	if s == nil || len(s.Args) < 1 {
		return nil
	}
	if len(s.Args) >= 2 && s.Args[1] == "combined" {
		x.setArg(s, 1, "timing")
	} else if len(s.Args) == 1 || strings.Contains(s.Args[1], "=") {
		x.take(s.ed.InsertArg(s.Pos, 1, "timing"))
	} else {
		return nil
	}
	ed, at := x.httpLevel(p, r)
	if x.failed {
		return nil
	}
	if s.Pos.File == at.File && s.Pos.Before(at) && sameBlock(ed, s.Pos, at) {
		at = s.Pos
	}
	x.insertBefore(ed, at, model.Directive{Name: "log_format", Args: append([]string{"timing"}, timingFormat...)}, model.Directive{})
	return x.result()
}

// timingTaken reports whether a format named "timing" may already be
// declared or used: a log_format or access_log of the run names it.
func timingTaken(x *fixer) bool {
	return x.sources.anyConf("format timing", func(ed model.ConfEditor) (bool, error) {
		for _, name := range []string{"log_format", "access_log"} {
			ds, err := ed.Find(name)
			if err != nil {
				return true, err
			}
			for _, d := range ds {
				for _, a := range d.Args {
					if a == "timing" {
						return true, nil
					}
				}
			}
		}
		return false, nil
	})
}

// formatEdits add the missing variables at the end of a custom format, as
// name=value pairs.
func formatEdits(pass *Pass, l model.AccessLog, missing []string) []Edit {
	x := newFixer(pass)
	s := x.nginxStatement(l.Format.Pos, "log_format")
	if s == nil || len(s.Args) < 2 {
		return nil
	}
	for _, a := range s.Args[1:] {
		if strings.HasPrefix(a, "escape=") && a != "escape=default" {
			return nil // JSON or unescaped text: the fields are the author's to name
		}
	}
	if strings.HasPrefix(strings.TrimSpace(s.Args[1]), "{") {
		return nil
	}
	var add []string
	for _, v := range missing {
		add = append(add, strings.TrimPrefix(v, "$")+"="+v)
	}
	x.setArg(s, len(s.Args), "' "+strings.Join(add, " ")+"'")
	return x.result()
}
