package releases

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

func v(s string) model.Version {
	ver, err := model.ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return ver
}

func target(t *testing.T, s string) model.Target {
	t.Helper()
	tg, err := model.ParseTarget(s)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestIn(t *testing.T) {
	for _, c := range []struct {
		change *Change
		target string
		before model.Version // Target.Before, for a range that ends
		want   bool
	}{
		{UpstreamKeepalive, "nginx:1.28", model.Version{}, false},
		{UpstreamKeepalive, "nginx:1.29.6", model.Version{}, false},
		{UpstreamKeepalive, "nginx:1.29.7", model.Version{}, true},
		{UpstreamKeepalive, "nginx:1.30", model.Version{}, true},
		{UpstreamKeepalive, "nginx:newest", model.Version{}, true},
		// The default range starts at 1.18: not every release pools.
		{UpstreamKeepalive, "nginx", model.Version{}, false},
		// Angie did not take the default pool.
		{UpstreamKeepalive, "angie:1.12", model.Version{}, false},
		{ProxyHTTPVersion, "angie:1.12", model.Version{}, true},
		{ProxyHTTPVersion, "angie:1.11", model.Version{}, false},
		{ProxyHTTPVersion, "nginx:1.29.7", model.Version{}, true},
		{IstioNo503Retry, "istio:1.23", model.Version{}, false},
		{IstioNo503Retry, "istio:1.24", model.Version{}, true},
		{IstioNo503Retry, "istio", model.Version{}, true},
		// A change of another product is never in the target.
		{IstioNo503Retry, "envoy", model.Version{}, false},
		// A bug fixed in 1.1.3: in 1.1.0 to 1.1.2 only.
		{GatewayDropsRouteTimeouts, "envoy-gateway:1.0.2", model.Version{}, false},
		{GatewayDropsRouteTimeouts, "envoy-gateway:1.1.0", model.Version{}, true},
		{GatewayDropsRouteTimeouts, "envoy-gateway:1.1.2", model.Version{}, true},
		{GatewayDropsRouteTimeouts, "envoy-gateway:1.1.3", model.Version{}, false},
		{GatewayDropsRouteTimeouts, "envoy-gateway:1.2.0", model.Version{}, false},
		{GatewayDropsRouteTimeouts, "envoy-gateway", model.Version{}, false},
		// Removed in 1.25.1: a range ending before it never has it.
		{SSLDirective, "nginx", v("1.25.1"), false},
		{SSLDirective, "nginx:1.26", model.Version{}, true},
	} {
		tg := target(t, c.target)
		tg.Before = c.before
		if got := c.change.In(tg); got != c.want {
			t.Errorf("%s.In(%s) = %v, want %v", c.change.ID, tg, got, c.want)
		}
	}
}

// TestTable holds every change to what the upgrade report prints of it.
func TestTable(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range All() {
		if c.ID == "" || ids[c.ID] {
			t.Errorf("change %q: empty or repeated ID", c.ID)
		}
		ids[c.ID] = true
		switch c.Kind {
		case Default, Added, Removed, Deprecated, Bug:
		default:
			t.Errorf("%s: kind %q", c.ID, c.Kind)
		}
		if c.Subject == "" || c.Before == "" || c.After == "" {
			t.Errorf("%s: subject, before and after must all be said", c.ID)
		}
		if len(c.Names) == 0 {
			t.Errorf("%s: no names: the report cannot find where the change touches a configuration", c.ID)
		}
		if len(c.Releases) == 0 {
			t.Errorf("%s: no release made it", c.ID)
		}
		seen := map[model.Product]bool{}
		for _, r := range c.Releases {
			if seen[r.Product] {
				t.Errorf("%s: two releases of %s", c.ID, r.Product)
			}
			seen[r.Product] = true
			if r.Since.IsZero() || r.Source == "" {
				t.Errorf("%s (%s): a release needs its version and its source", c.ID, r.Product)
			}
			if !r.Until.IsZero() && (c.Kind != Bug || !r.Since.Less(r.Until)) {
				t.Errorf("%s (%s): Until is for a bug, after Since", c.ID, r.Product)
			}
			if c.Kind == Bug && r.Until.IsZero() {
				t.Errorf("%s (%s): a bug needs the release that fixed it", c.ID, r.Product)
			}
		}
		if got, ok := Lookup(c.ID); !ok || got != c {
			t.Errorf("Lookup(%q) = %v", c.ID, got)
		}
	}
	if len(Of(model.Angie)) != 4 {
		t.Errorf("Angie made %d of the changes, want 4 (HTTP/1.1, no Connection header, resolver conf, upstream resolve)", len(Of(model.Angie)))
	}
}

// releaseComparison is how code asks which release it runs for: a
// comparison with a release number written in the code.
var releaseComparison = regexp.MustCompile(`\.AtLeast\(|Version\{\s*[0-9]|\{\s*Major:\s*[0-9]|\.(Major|Minor|Patch)\s*(==|!=|<|>|<=|>=)\s*[0-9]|\.Less\(model\.Version\{`)

// releaseExempt are the files that may compare releases themselves:
// this table; the model, which defines versions and the releases a
// target may name; the directive tables generated from nginx's source
// and the check that reads them, which are data of their own (every
// directive's releases), read by the upgrade report too.
var releaseExempt = map[string]bool{
	"model/model.go":                       true,
	"parsers/nginx/directives_gen.go":      true,
	"parsers/nginx/internal/gendirectives": true,
}

// TestEveryReleaseComparisonReadsTheTable fails when code outside the
// table decides by a release number of its own: such a decision would be
// missing from proxylint upgrade. Read the change from the table instead
// (releases.X.In(target)), adding it there with its source.
func TestEveryReleaseComparisonReadsTheTable(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || rel == "releases" || releaseExempt[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || releaseExempt[rel] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if releaseComparison.MatchString(code) {
				found = append(found, rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: a release comparison outside the table (releases/table.go); read the change from it", f)
	}
}

// TestReleaseComparisonIsFound holds the pattern to the comparisons the
// loaders made before the table.
func TestReleaseComparisonIsFound(t *testing.T) {
	for _, line := range []string{
		"p.UpstreamsPoolByDefault = target.Product == model.Nginx && target.AtLeast(1, 29, 7)",
		"return v.IsZero() || !v.Less(model.Version{Major: 1, Minor: 4})",
		"return !v.IsZero() && v.Major == 1 && v.Minor == 1 && v.Patch < 3",
		"v.since = model.Version{Major: 1, Minor: 20}",
		`"reset-before-request": {Major: 1, Minor: 31},`,
	} {
		if !releaseComparison.MatchString(line) {
			t.Errorf("not found: %s", line)
		}
	}
	for _, line := range []string{
		"if releases.UpstreamKeepalive.In(b.target) {",
		"t.Version.IsZero()",
	} {
		if releaseComparison.MatchString(line) {
			t.Errorf("found, but reads the table: %s", line)
		}
	}
}
