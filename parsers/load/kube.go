package load

import (
	"fmt"
	"path/filepath"
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
	src, err := opts.source().read(path, opts.MaxFileSize)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(path, fmt.Sprintf("cannot read %s: %v", path, unwrap(err)))}}
	}
	m := kube.Parse(path, src)
	m.File().Real = realPath(path)
	return kubeResult(m)
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
//
// Helm chart templates (charts) were skipped before: they count among the
// files of manifests that configure no proxy.
func joinKube(m *model.Model, kubes []kubeItem, charts int, ranOther bool, paths []string, opts Options) {
	if len(kubes)+charts == 0 {
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
		where := strings.Join(shownPaths, ", ")
		var msg string
		switch {
		case charts == 0:
			msg = fmt.Sprintf("nothing in %s configures a proxy: %s skipped (--verbose names %s)", where, were(len(skipped), "Kubernetes manifest"), them(len(skipped)))
		case len(skipped) == 0:
			msg = fmt.Sprintf("nothing in %s was linted: %s skipped, which proxylint reads once helm renders them (helm template CHART | proxylint -); --verbose names %s",
				where, were(charts, "Helm chart template"), them(charts))
		default:
			msg = fmt.Sprintf("nothing in %s configures a proxy: %s and %s were skipped (helm template CHART | proxylint - reads the charts; --verbose names them)",
				where, plural(len(skipped), "Kubernetes manifest"), plural(charts, "Helm chart template"))
		}
		m.Diagnostics = append(m.Diagnostics, model.Diagnostic{Code: nginx.CodeLoad, Severity: model.Note, Pos: model.Pos{File: shownPaths[0]}, Message: msg})
	}
}

// kindChart marks a Helm chart template, which is skipped: it is not a
// manifest until helm renders it.
const kindChart = "helm-chart-template"

// helmChart is the chart directory when path lies under a chart's
// templates/ directory (CHART/Chart.yaml beside CHART/templates/, as Helm
// lays charts out), else "". Such a file is Go template text that renders
// to manifests ({{ if }}, {{ .Values.x }}); read as YAML it is either
// refused or read wrong.
func helmChart(path string) string {
	dir := filepath.Dir(path)
	for i := 0; i < 8; i++ {
		if filepath.Base(dir) == "templates" {
			chart := filepath.Dir(dir)
			if isRegular(filepath.Join(chart, "Chart.yaml")) {
				return chart
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

func chartReason(path string) string {
	chart := helmChart(path)
	return "a Helm chart template (" + filepath.Join(chart, "Chart.yaml") + "): lint what helm renders (helm template " + chart + " | proxylint -)"
}

// plural is "1 thing" or "N things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// were is "1 thing was" or "N things were".
func were(n int, thing string) string {
	if n == 1 {
		return "1 " + thing + " was"
	}
	return plural(n, thing) + " were"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
