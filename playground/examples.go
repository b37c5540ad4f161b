package playground

import (
	"embed"
	"path"
)

// Example is a set of files the page offers to start from.
type Example struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Files []File `json:"files"`
}

//go:embed examples
var exampleFiles embed.FS

// examples are the page's examples, in the order it lists them, each file
// in the order its tabs show (the main configuration first).
var examples = []struct {
	id, title string
	files     []string
}{
	{"nginx-include", "nginx: nginx.conf and a site it includes", []string{"nginx.conf", "conf.d/shop.conf"}},
	{"envoy-xds", "Envoy: listeners and routes (RDS) in two files", []string{"listeners.yaml", "routes.yaml"}},
	{"envoy-nginx", "Envoy in front of nginx: one request, two hops", []string{"envoy.yaml", "nginx.conf"}},
	{"istio", "Istio: a VirtualService", []string{"virtualservice.yaml"}},
}

// Examples returns the examples with their files' texts.
func Examples() []Example {
	out := make([]Example, 0, len(examples))
	for _, e := range examples {
		ex := Example{ID: e.id, Title: e.title}
		for _, name := range e.files {
			src, err := exampleFiles.ReadFile(path.Join("examples", e.id, name))
			if err != nil {
				// The list above names files that are not embedded: a
				// mistake the tests catch.
				panic(err)
			}
			ex.Files = append(ex.Files, File{Name: name, Text: string(src)})
		}
		out = append(out, ex)
	}
	return out
}
