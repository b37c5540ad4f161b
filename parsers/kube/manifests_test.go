package kube_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// manifestsList pins the public manifests the test lints (repository,
// commit, path, and the --target to lint with); bench/manifests.sh
// materialises them outside the repository.
const manifestsList = "../../bench/manifests.txt"

// What linting the pinned manifests reports, by rule: a change shows here
// in review. docs/accuracy.md ("Kubernetes manifests") judges each finding.
var wantManifestCounts = map[string]int{
	// Gateway API's GRPCRoute examples under Istio's default retry
	// policy, which retries unavailable and cancelled gRPC responses.
	"retry-timeout-write": 10,
	// Istio's bookinfo Ingress of class istio, not modelled; Istio's
	// IstioOperator for its integration tests, which holds no route.
	"load-error": 2,
	// Contour's example of a response timeout, still an HTTPProxy of
	// projectcontour.io/v1alpha1, which no release since 1.0 serves.
	"kube-ignored": 1,
}

// The only problems reading the manifests: file (under the manifests
// directory) → rule.
var wantManifestLoadProblems = []string{
	"istio/istio/samples/bookinfo/platform/kube/bookinfo-ingress.yaml:18 load-error note",
	"istio/istio/tests/integration/base.yaml:2 load-error note",
	"projectcontour/contour/examples/example-workload/httpproxy/03-routes/httpproxy-response-timeout.yaml:2 kube-ignored warning",
}

type pinned struct {
	repo, commit, path string
	target             []model.Target
}

func readManifestsList(t *testing.T) []pinned {
	src, err := os.ReadFile(manifestsList)
	if err != nil {
		t.Fatal(err)
	}
	var out []pinned
	for _, line := range strings.Split(string(src), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 3 || len(fields) > 4 {
			t.Fatalf("%s: %q: want REPOSITORY COMMIT PATH [TARGET]", manifestsList, line)
		}
		p := pinned{repo: fields[0], commit: fields[1], path: fields[2]}
		if len(fields) == 4 {
			tg, err := model.ParseTarget(fields[3])
			if err != nil {
				t.Fatalf("%s: %v", manifestsList, err)
			}
			p.target = []model.Target{tg}
		}
		out = append(out, p)
	}
	return out
}

// manifestsDir is $PROXYLINT_MANIFESTS, else ../shared-manifests beside
// the repository, as bench/manifests.sh writes it.
func manifestsDir() string {
	if d := os.Getenv("PROXYLINT_MANIFESTS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared-manifests")
}

// TestPublicManifests lints every pinned public manifest, one file per
// run as `proxylint FILE` does: no panic, no problem reading other than
// the expected ones, and exactly the expected findings per rule.
func TestPublicManifests(t *testing.T) {
	list := readManifestsList(t)
	dir := manifestsDir()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the public manifests are not materialised at %s (run bench/manifests.sh, or set PROXYLINT_MANIFESTS): %v", dir, err)
	}
	counts := map[string]int{}
	var problems, all []string
	for _, p := range list {
		rel := filepath.Join(p.repo, p.path)
		path := filepath.Join(dir, rel)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s is missing (%v): run bench/manifests.sh again", path, err)
			continue
		}
		findings, panicked := lintOne(path, p.target)
		if panicked != nil {
			t.Errorf("%s: panic: %v", rel, panicked)
			continue
		}
		for _, f := range findings {
			file, err := filepath.Rel(dir, f.Pos.File)
			if err != nil {
				file = f.Pos.File
			}
			line := fmt.Sprintf("%s:%d %s %s", filepath.ToSlash(file), f.Pos.Line, f.Rule, f.Severity)
			all = append(all, line+": "+f.Message)
			counts[f.Rule]++
			if r, ok := rules.Lookup(f.Rule); !ok || r.Check == nil || f.Fatal || f.Unread {
				problems = append(problems, line)
			}
		}
	}
	sort.Strings(problems)
	if !reflect.DeepEqual(problems, wantManifestLoadProblems) {
		t.Errorf("problems reading the manifests:\n  %s\nwant\n  %s", strings.Join(problems, "\n  "), strings.Join(wantManifestLoadProblems, "\n  "))
	}
	if !reflect.DeepEqual(counts, wantManifestCounts) {
		t.Errorf("findings by rule %v, want %v; every finding:\n  %s", counts, wantManifestCounts, strings.Join(all, "\n  "))
	}
}

func lintOne(path string, targets []model.Target) (findings []rules.Finding, panicked any) {
	defer func() { panicked = recover() }()
	m := load.Load([]string{path}, load.Options{Targets: targets})
	return rules.Run(m, &rules.Options{}), nil
}
