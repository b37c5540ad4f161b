//go:build js && wasm

// Command wasm is proxylint's lint core for the browser. Built with
// GOOS=js GOARCH=wasm (go run ./playground/build), it sets
// globalThis.proxylint to an object the page calls:
//
//	proxylint.lint(requestJSON)  a Promise of the response's JSON
//	                             (playground.Request, playground.Response)
//	proxylint.rules()            the rules with their docs, as JSON
//	proxylint.examples()         the page's examples, as JSON
//	proxylint.warm()             build ahead what a first lint of
//	                             Envoy files would (playground.Warm)
//	proxylint.version            the commit it was built from
//
// and then calls globalThis.proxylintReady, when the page has set it.
// Nothing is read from a disk or a network: the files linted are the
// request's.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/proxylint/proxylint/playground"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("lint", js.FuncOf(lint))
	api.Set("rules", js.FuncOf(func(js.Value, []js.Value) any { return encode(playground.Rules()) }))
	api.Set("examples", js.FuncOf(func(js.Value, []js.Value) any { return encode(playground.Examples()) }))
	api.Set("warm", js.FuncOf(func(js.Value, []js.Value) any {
		playground.Warm()
		return nil
	}))
	api.Set("version", version())
	js.Global().Set("proxylint", api)
	if ready := js.Global().Get("proxylintReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // the functions above live as long as the page
}

// lint returns a Promise of the response to the request args[0], a JSON
// string. The lint runs on its own goroutine, as a function called from
// JavaScript must not block; a panic is answered as an error, so that the
// page is told rather than left waiting.
func lint(_ js.Value, args []js.Value) any {
	in := ""
	if len(args) > 0 && args[0].Type() == js.TypeString {
		in = args[0].String()
	}
	executor := js.FuncOf(func(_ js.Value, p []js.Value) any {
		resolve := p[0]
		go func() {
			var res playground.Response
			defer func() {
				if r := recover(); r != nil {
					res = playground.Response{Error: fmt.Sprintf("internal error: %v", r), Findings: []playground.Finding{}}
				}
				resolve.Invoke(encode(res))
			}()
			var req playground.Request
			if err := json.Unmarshal([]byte(in), &req); err != nil {
				res = playground.Response{Error: "bad request: " + err.Error(), Findings: []playground.Finding{}}
				return
			}
			res = playground.Lint(req)
		}()
		return nil
	})
	// The executor runs within the constructor.
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":%q,"findings":[]}`, err.Error())
	}
	return string(b)
}

// version is the commit the program was built from, "+dirty" when the
// tree had changes, or "(devel)".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return rev[:min(12, len(rev))] + dirty
}
