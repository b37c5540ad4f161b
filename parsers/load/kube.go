package load

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/kube"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// KindKube is a Kubernetes manifest of proxy resources (parsers/kube).
const KindKube = "kubernetes"

// loadKube parses one file of manifests; the manifests of the whole run
// are joined afterwards (joinKube), since a resource may name one in
// another file.
func loadKube(path string, opts Options, _ []string) Result {
	src, err := ReadRegular(path, opts.MaxFileSize)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(path, fmt.Sprintf("cannot read %s: %v", path, unwrap(err)))}}
	}
	return kubeResult(kube.Parse(path, src))
}

func kubeResult(m *kube.Manifest) Result {
	return Result{Files: []*model.File{m.File()}, kube: m}
}

// kubeTarget is the platform release manifests are read for: the first
// target naming a Kubernetes platform, else none (the loader's default:
// the newest Istio, which also reads Gateway API routes).
func kubeTarget(opts Options) model.Target {
	for _, t := range opts.Targets {
		if t.Product.Kubernetes() {
			return t
		}
	}
	return model.Target{}
}

// kubeItem is a manifest of the run with the item it was loaded for.
type kubeItem struct {
	it item
	m  *kube.Manifest
}

// joinKube joins every Kubernetes manifest of the run into one
// deployment (kube.Link) and adds what it configures to the model: the
// proxies, the Services and workloads, the diagnostics, and the files.
//
// A manifest that configures no proxy (Deployments, ConfigMaps, kinds
// proxylint does not read) is skipped like any file that is not a
// configuration, and its Services and workloads are still read to link
// routes to the pods behind them; a run whose every file is such a
// manifest says so in a note and passes. Read with --kind kubernetes, such
// a manifest is an error, unless it holds Services or workloads for the
// routes of other manifests.
func joinKube(m *model.Model, kubes []kubeItem, ranOther bool, paths []string, opts Options) {
	if len(kubes) == 0 {
		return
	}
	ms := make([]*kube.Manifest, len(kubes))
	named := true
	for i, k := range kubes {
		ms[i] = k.m
		named = named && k.it.explicit
	}
	r := kube.Link(ms, kube.Options{Target: kubeTarget(opts)})
	for _, p := range r.Proxies {
		p.Named = named
	}
	explicit := map[string]bool{}
	for _, k := range kubes {
		explicit[k.m.Path()] = k.it.explicit
	}
	for _, s := range r.Services {
		s.Named = explicit[s.Pos.File]
	}
	for _, w := range r.Workloads {
		w.Named = explicit[w.Pos.File]
	}
	m.Proxies = append(m.Proxies, r.Proxies...)
	m.Services = append(m.Services, r.Services...)
	m.Workloads = append(m.Workloads, r.Workloads...)
	m.Diagnostics = append(m.Diagnostics, r.Diagnostics...)
	idle := map[string]bool{}
	var skipped []string
	for _, i := range r.Idle {
		idle[i.Path] = true
		switch {
		case opts.Kind != KindKube:
			opts.skip(i.Path, i.Reason)
			skipped = append(skipped, i.Path)
		case i.Linked && len(r.Proxies) > 0:
			idle[i.Path] = false // read to link the routes of the others
		default:
			m.Diagnostics = append(m.Diagnostics, loadError(i.Path, fmt.Sprintf("%s: %s, so nothing in it is linted (read as Kubernetes manifests because of --kind kubernetes)", i.Path, i.Reason)))
		}
	}
	for _, k := range kubes {
		if !idle[k.m.Path()] {
			m.Files = append(m.Files, k.m.File())
		}
	}
	if len(skipped) == len(kubes) && !ranOther && !fatal(m.Diagnostics) {
		shownPaths := make([]string, len(paths))
		for i, p := range paths {
			shownPaths[i] = p
			if p == StdinPath {
				shownPaths[i] = opts.Stdin.name()
			}
		}
		what := "1 Kubernetes manifest was skipped (--verbose names it)"
		if len(skipped) > 1 {
			what = fmt.Sprintf("%d Kubernetes manifests were skipped (--verbose names them)", len(skipped))
		}
		m.Diagnostics = append(m.Diagnostics, model.Diagnostic{Code: nginx.CodeLoad, Severity: model.Note, Pos: model.Pos{File: shownPaths[0]},
			Message: fmt.Sprintf("nothing in %s configures a proxy: %s", strings.Join(shownPaths, ", "), what)})
	}
}
