package rules

import (
	"fmt"
	"time"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// EnvoyH1UnsafeDrain flags an HTTP connection manager that limits the
// lifetime of HTTP/1 connections without draining them safely: Envoy
// closes the connection under clients that sit idle on it, and the
// request one of them sends at that moment fails.
var EnvoyH1UnsafeDrain = &Rule{
	ID:       "envoy-h1-unsafe-drain",
	Summary:  "max_connection_duration closes HTTP/1 connections under idle clients: a request sent as it closes fails, and a POST is not retried",
	Severity: model.Warning,
	Tags:     []string{"envoy", "keepalive", "correctness"},
	Products: []model.Product{model.Envoy},
	Check:    checkEnvoyH1UnsafeDrain,
}

func checkEnvoyH1UnsafeDrain(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, l := range p.Listeners {
			if f, ok := h1UnsafeDrain(p, l); ok {
				if gen := generatedBy(pass, f.Pos); gen != "" {
					f.Fix = writtenElsewhere(gen, f.Pos, f.Fix.Message, "in the bootstrap or in the control plane that serves this Envoy's listeners")
				} else {
					f.Fix = h1SafeDrainFix(pass, p, l).Or(f.Fix.Message)
				}
				pass.Report(f)
			}
		}
	}
}

// h1UnsafeDrain: the listener speaks HTTP/1 (codec AUTO or HTTP1), sets
// max_connection_duration, and does not set
// http1_safe_max_connection_duration (docs/semantics.md §F).
func h1UnsafeDrain(p *model.Proxy, l *model.Listener) (Finding, bool) {
	codec, limit := l.Codec, l.MaxConnectionDuration
	if !codec.Valid() || (codec.Value != "AUTO" && codec.Value != "HTTP1") {
		return Finding{}, false // HTTP/2 and HTTP/3 drain with GOAWAY
	}
	if !limit.Explicit() || limit.Value <= 0 || l.H1SafeMaxConnectionDuration.Value {
		return Finding{}, false
	}
	drain, delayed := l.DrainTimeout, l.DelayedCloseTimeout
	closed := addDur(limit.Value, drain.Value, delayed.Value)
	speaks := "serves HTTP/1 (codec_type " + codec.Value + ")"
	if codec.Value == "AUTO" && codec.Default() {
		speaks = "serves HTTP/1 (codec_type AUTO, the default, takes HTTP/1 and HTTP/2)"
	}
	msg := fmt.Sprintf("%s on a listener that %s closes connections under idle keep-alive clients: "+
		"when the duration is up Envoy starts draining, and a client that sends nothing is cut off at %s + %s + %s = %s. "+
		"A request sent in the last second meets a closed connection (\"response ended prematurely\", \"connection reset\"), "+
		"and clients and load balancers do not, as a rule, send a POST again on a new connection.",
		durText(limit), speaks, dur(limit.Value), durText(drain), durText(delayed), seconds(closed))
	if delayed.Valid() && delayed.Value == 0 {
		msg += " delayed_close_timeout 0 makes it worse: Envoy closes the socket as soon as its last write is flushed, " +
			"without waiting for the client to see the close, so bytes already on the wire are answered with a reset."
	}
	related := relatedSetting(drain, limit.Pos(), "the drain lasts "+durText(drain))
	related = append(related, relatedSetting(delayed, limit.Pos(), "then the close waits "+durText(delayed))...)
	if codec.Explicit() {
		related = append(related, Related{Pos: codec.Pos(), Message: settingText(codec, codec.Value) + " serves HTTP/1"})
	}
	if safe := l.H1SafeMaxConnectionDuration; safe.Explicit() {
		// Written, and off: the fix turns it on there.
		related = append(related, Related{Pos: safe.Pos(), Message: safe.Name() + " false is set here"})
	}
	fix := "set http1_safe_max_connection_duration: true next to max_connection_duration: Envoy then waits for the next " +
		"request, answers it with \"Connection: close\" and closes the connection once that response is sent"
	if !releases.H1SafeDrain.In(p.Target) {
		fix = fmt.Sprintf("http1_safe_max_connection_duration needs Envoy 1.32 or newer (this configuration targets %s): "+
			"upgrade and set it to true, or remove max_connection_duration", p.Target)
	}
	return Finding{
		Pos:     limit.Pos(),
		Message: msg,
		Related: related,
		Fix:     Advice(fix),
	}, true
}

// seconds renders a sum of timeouts as "66s", or "65.5s".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return dur(d)
	}
	return fmt.Sprintf("%gs", d.Seconds())
}

// h1SafeDrainFix sets http1_safe_max_connection_duration: true on the
// HttpConnectionManager (field 58 of HttpConnectionManager, next to
// common_http_protocol_options, not inside it): it turns an explicit false
// into true, or adds the field before common_http_protocol_options in the
// connection manager that the flag's default points at, in the file's
// style (block or flow YAML, JSON, its case of field names). The rest of
// the text is kept as written. It is safe: the connection still closes
// after max_connection_duration, once the request in flight is answered.
func h1SafeDrainFix(pass *Pass, p *model.Proxy, l *model.Listener) Fix {
	if !releases.H1SafeDrain.In(p.Target) {
		return Fix{}
	}
	x := newFixer(pass)
	safe := l.H1SafeMaxConnectionDuration
	ed := x.tree(safe.Pos())
	if ed == nil {
		return Fix{}
	}
	// The field is named as the file names its fields.
	name := ed.Name(safe.Pos(), "http1_safe_max_connection_duration")
	msg := "set " + name + ": true on the HttpConnectionManager: Envoy then closes an HTTP/1 connection only after answering a request on it with \"Connection: close\""
	if safe.Explicit() {
		x.take(ed.SetValue(safe.Pos(), model.Bool(true)))
		return SafeFix(msg, x.result())
	}
	// The options that hold the limit must be this manager's.
	opts, ok := ed.Lookup(safe.Pos(), "common_http_protocol_options")
	if !ok {
		return Fix{}
	}
	if limit, ok := ed.Lookup(opts.Pos, "max_connection_duration"); !ok || limit.KeyPos != l.MaxConnectionDuration.Pos() {
		return Fix{}
	}
	x.take(ed.InsertField(opts.KeyPos, model.Before, "http1_safe_max_connection_duration", model.Bool(true)))
	return SafeFix(msg, x.result())
}
