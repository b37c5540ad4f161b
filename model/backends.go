package model

import (
	"sort"
	"time"
)

// backend describes a backend server's documented defaults. docs/presets.md
// cites the source of every value and the release it holds from.
type backend struct {
	name string
	doc  string
	// idle is how long it keeps an idle connection from the proxy open; 0
	// means it closes the connection after every response.
	idle time.Duration
	// cancels says whether it stops the handler when the proxy goes away.
	cancels bool
}

var backendPresets = []backend{
	{name: "uvicorn", doc: "uvicorn 0.2.22+ (--timeout-keep-alive 5s); no cancellation", idle: 5 * time.Second},
	{name: "gunicorn", doc: "gunicorn gthread/gevent/asgi workers (keepalive 2s); no cancellation for WSGI", idle: 2 * time.Second},
	{name: "gunicorn-sync", doc: "gunicorn sync worker: Connection: close on every response", idle: 0},
	{name: "node", doc: "Node.js http.Server v8-v26 (keepAliveTimeout 5000 ms); no cancellation", idle: 5 * time.Second},
	{name: "go-net-http", doc: "Go net/http.Server with a zero IdleTimeout and ReadTimeout: no idle limit; the request context is cancelled", idle: 0, cancels: true},
	{name: "aiohttp", doc: "aiohttp web.run_app (keepalive_timeout 75s); handler_cancellation off (3.8.2+)", idle: 75 * time.Second},
	{name: "aiohttp-handler-cancellation", doc: "aiohttp web.run_app (keepalive_timeout 75s) with handler_cancellation=True (3.9+)", idle: 75 * time.Second, cancels: true},
	{name: "kestrel", doc: "ASP.NET Core Kestrel 6.0+ (KeepAliveTimeout 130s); RequestAborted cancels cooperatively", idle: 130 * time.Second, cancels: true},
	{name: "tomcat", doc: "Apache Tomcat with the shipped server.xml (connectionTimeout 20000 ms); no cancellation", idle: 20 * time.Second},
	{name: "tomcat-embedded", doc: "Apache Tomcat without server.xml (connectionTimeout 60000 ms); no cancellation", idle: 60 * time.Second},
	{name: "puma", doc: "Puma 7.0+ (persistent_timeout 65s)", idle: 65 * time.Second},
	{name: "jetty", doc: "Eclipse Jetty 12 (idleTimeout 30000 ms)", idle: 30 * time.Second},
}

func backendPreset(name string) (backend, bool) {
	for _, b := range backendPresets {
		if b.name == name {
			return b, true
		}
	}
	return backend{}, false
}

// BackendPresets lists the names --backend accepts.
func BackendPresets() []string {
	out := make([]string, len(backendPresets))
	for i, b := range backendPresets {
		out[i] = b.name
	}
	sort.Strings(out)
	return out
}

// BackendDoc describes a backend preset, for help texts.
func BackendDoc(name string) string {
	b, _ := backendPreset(name)
	return b.doc
}
