package rules

import (
	"fmt"
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
		// The routes of a server share its access_log.
		seen := reported{}
		for _, r := range p.Routes() {
			if r.Forward == nil {
				continue
			}
			if f, ok := blindLog(r, p.Context != "main"); ok {
				if !seen.first(f) {
					continue
				}
				f.Fix, f.Edits = logFormatFixOf(pass, p, r, f.Fix)
				pass.Report(f)
			}
		}
	}
}

func blindLog(r *model.Route, fragment bool) (Finding, bool) {
	logs := r.AccessLogs
	for _, l := range logs.Value {
		if l.Off || (!l.Format.Builtin && l.Format.Text == "") {
			continue
		}
		var missing []string
		for _, v := range timingVariables {
			if !hasVariable(l.Format.Text, v) {
				missing = append(missing, "$"+v)
			}
		}
		if len(missing) == 0 {
			continue
		}
		what := fmt.Sprintf("access_log %s (format %q)", l.Path, l.Format.Name)
		if logs.Default {
			if fragment {
				// The log of a fragment is the including configuration's:
				// it sets access_log at http level more often than not,
				// and nothing true can be said without it.
				return Finding{}, false
			}
			// The default path is chosen when nginx is built
			// (--http-log-path): logs/access.log from source,
			// /var/log/nginx/access.log in distributions.
			what = fmt.Sprintf("The default access log (format %q)", l.Format.Name)
		}
		f := Finding{
			Pos:     l.Pos,
			Message: fmt.Sprintf("%s has no %s: %s.", what, quoteList(missing), blindness(missing)),
			Fix:     `log_format timing '$remote_addr "$request" $status $request_time ' '$upstream_addr $upstream_status $upstream_response_time $upstream_connect_time'; access_log /var/log/nginx/access.log timing;`,
		}
		if l.Format.Pos.IsValid() {
			f.Related = []Related{{Pos: l.Format.Pos, Message: fmt.Sprintf("log_format %s", l.Format.Name)}}
		}
		return f, true
	}
	return Finding{}, false
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
