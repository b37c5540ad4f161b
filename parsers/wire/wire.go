// Package wire carries loaded configurations between processes: the
// proxies of the model (with their listeners, routes and upstreams, whose
// pointers to one another become indexes), the files they were read from,
// and the loader's diagnostics, as one JSON document.
//
// proxylint reads Envoy files in a separate program (proxylint-envoy), so
// that the Envoy API it links is loaded only when an Envoy file is linted.
package wire

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/proxylint/proxylint/parsers"
)

// Version changes when the document changes incompatibly; both programs
// are built from the same module, so it only guards against mixing
// releases.
const Version = 1

// Bundle is what one load produced.
type Bundle struct {
	Proxies     []*parsers.Proxy
	Files       []*parsers.File
	Diagnostics []parsers.Diagnostic
}

type document struct {
	Version     int                  `json:"version"`
	Proxies     []proxy              `json:"proxies"`
	Files       []*parsers.File      `json:"files"`
	Diagnostics []parsers.Diagnostic `json:"diagnostics"`
}

// proxy is a parsers.Proxy whose back pointers are cleared. Its fields
// named like the embedded ones shadow them (encoding/json keeps the
// shallowest).
type proxy struct {
	parsers.Proxy
	Listeners []listener          `json:"Listeners"`
	Upstreams []*parsers.Upstream `json:"Upstreams"`
}

type listener struct {
	parsers.Listener
	Routes []route `json:"Routes"`
}

// route is a parsers.Route with its parent route and its upstream given by
// index (-1 for none): Parent among the listener's routes, Upstream among
// the proxy's upstreams.
type route struct {
	parsers.Route
	ParentIndex   int `json:"parent_index"`
	UpstreamIndex int `json:"upstream_index"`
}

// Encode writes b.
func Encode(w io.Writer, b Bundle) error {
	doc := document{Version: Version, Files: b.Files, Diagnostics: b.Diagnostics}
	for _, p := range b.Proxies {
		wp := proxy{Proxy: *p}
		wp.Proxy.Listeners, wp.Proxy.Upstreams = nil, nil
		upstreamIndex := map[*parsers.Upstream]int{}
		for i, u := range p.Upstreams {
			upstreamIndex[u] = i
			cu := *u
			cu.Proxy, cu.Routes = nil, nil
			wp.Upstreams = append(wp.Upstreams, &cu)
		}
		for _, l := range p.Listeners {
			wl := listener{Listener: *l}
			wl.Listener.Proxy, wl.Listener.Routes = nil, nil
			routeIndex := map[*parsers.Route]int{}
			for i, r := range l.Routes {
				routeIndex[r] = i
			}
			for _, r := range l.Routes {
				wr := route{Route: *r, ParentIndex: -1, UpstreamIndex: -1}
				wr.Route.Listener, wr.Route.Parent = nil, nil
				if r.Parent != nil {
					wr.ParentIndex = routeIndex[r.Parent]
				}
				if r.Pass != nil {
					pass := *r.Pass
					if r.Pass.Upstream != nil {
						if i, ok := upstreamIndex[r.Pass.Upstream]; ok {
							wr.UpstreamIndex = i
						}
					}
					pass.Upstream = nil
					wr.Route.Pass = &pass
				}
				wl.Routes = append(wl.Routes, wr)
			}
			wp.Listeners = append(wp.Listeners, wl)
		}
		doc.Proxies = append(doc.Proxies, wp)
	}
	return json.NewEncoder(w).Encode(doc)
}

// Decode reads a Bundle written by Encode and restores its pointers.
func Decode(r io.Reader) (Bundle, error) {
	var doc document
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return Bundle{}, fmt.Errorf("reading loaded configurations: %w", err)
	}
	if doc.Version != Version {
		return Bundle{}, fmt.Errorf("loaded configurations are version %d, want %d: the two programs come from different releases", doc.Version, Version)
	}
	b := Bundle{Files: doc.Files, Diagnostics: doc.Diagnostics}
	for _, wp := range doc.Proxies {
		p := new(parsers.Proxy)
		*p = wp.Proxy
		p.Listeners, p.Upstreams = nil, nil
		for _, u := range wp.Upstreams {
			u.Proxy = p
			p.Upstreams = append(p.Upstreams, u)
		}
		for _, wl := range wp.Listeners {
			l := new(parsers.Listener)
			*l = wl.Listener
			l.Proxy = p
			for _, wr := range wl.Routes {
				r := new(parsers.Route)
				*r = wr.Route
				r.Listener = l
				l.Routes = append(l.Routes, r)
			}
			for i, wr := range wl.Routes {
				r := l.Routes[i]
				if wr.ParentIndex >= 0 && wr.ParentIndex < len(l.Routes) {
					r.Parent = l.Routes[wr.ParentIndex]
				}
				if r.Pass != nil && wr.UpstreamIndex >= 0 && wr.UpstreamIndex < len(p.Upstreams) {
					u := p.Upstreams[wr.UpstreamIndex]
					r.Pass.Upstream = u
					u.Routes = append(u.Routes, r)
				}
			}
			p.Listeners = append(p.Listeners, l)
		}
		b.Proxies = append(b.Proxies, p)
	}
	return b, nil
}
