package chain_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
)

// links loads the named files (written into a temporary directory) and
// describes each link as "FROM -> ADDRESS -> TO" with routes named by file
// and line.
func links(t *testing.T, files map[string]string, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, n))
	}
	m := analyzed(paths, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	for _, d := range m.Diagnostics {
		require.Falsef(t, d.Fatal, "%s", d.Error())
	}
	var out []string
	for _, l := range m.Chain.Links {
		to := "?"
		if l.To != nil {
			to = name(l.To.Pos)
		}
		out = append(out, name(l.From.Pos)+" -> "+l.Server.Address.String()+" -> "+to)
	}
	sort.Strings(out)
	return out
}

func name(p model.Pos) string {
	return fmt.Sprintf("%s:%02d", filepath.Base(p.File), p.Line)
}

const edge = `events {}
http {
    upstream inner { server 127.0.0.1:8081; }
    upstream svc { server api:9000; }
    server {
        listen 80;
        location /api/ {
            proxy_pass http://inner;
        }
        location /admin/ {
            proxy_pass http://inner/internal/admin/;
        }
        location /svc/ {
            proxy_pass http://svc;
        }
    }
}
`

const inner = `events {}
http {
    upstream app { server 10.0.0.1:8000; }
    server {
        listen 8081;
        location / {
            proxy_pass http://app;
        }
        location /internal/ {
            location /internal/admin/ {
                proxy_pass http://app;
            }
        }
        location ~ ^/api/v2/ {
            proxy_pass http://app;
        }
    }
}
`

func TestLinksAcrossFiles(t *testing.T) {
	got := links(t, map[string]string{"edge.conf": edge, "inner.conf": inner}, "edge.conf", "inner.conf")
	assert.Equal(t, []string{
		"edge.conf:07 -> 127.0.0.1:8081 -> inner.conf:06",
		"edge.conf:10 -> 127.0.0.1:8081 -> inner.conf:10",
	}, got)
}

func TestHostNameReachesTheOnlyConfigOnItsPort(t *testing.T) {
	// Named together on the command line.
	api := `events {}
http {
    upstream app { server 10.0.0.1:8000; }
    server {
        listen 9000;
        location / { proxy_pass http://app; }
    }
}
`
	got := links(t, map[string]string{"edge.conf": edge, "api.conf": api}, "edge.conf", "api.conf")
	assert.Equal(t, []string{"edge.conf:13 -> api:9000 -> api.conf:06"}, got)

	// Two configurations listen on 9000: the name is ambiguous.
	other := strings.Replace(api, "10.0.0.1", "10.0.0.2", 1)
	got = links(t, map[string]string{"edge.conf": edge, "api.conf": api, "other.conf": other}, "edge.conf", "api.conf", "other.conf")
	assert.Empty(t, got)
}

func TestRegexLocationTakesPrecedence(t *testing.T) {
	e := strings.Replace(edge, "proxy_pass http://inner;", "proxy_pass http://inner/api/v2/;", 1)
	got := links(t, map[string]string{"edge.conf": e, "inner.conf": inner}, "edge.conf", "inner.conf")
	assert.Contains(t, got, "edge.conf:07 -> 127.0.0.1:8081 -> inner.conf:14")
}

func TestRequestURIKeepsThePath(t *testing.T) {
	e := strings.Replace(edge, "proxy_pass http://inner;", "proxy_pass http://inner$request_uri;", 1)
	got := links(t, map[string]string{"edge.conf": e, "inner.conf": inner}, "edge.conf", "inner.conf")
	assert.Contains(t, got, "edge.conf:07 -> 127.0.0.1:8081 -> inner.conf:06")
}

func TestUnknownPathLinksWithoutRoute(t *testing.T) {
	e := strings.Replace(edge, "proxy_pass http://inner;", "proxy_pass http://inner/$arg_target;", 1)
	got := links(t, map[string]string{"edge.conf": e, "inner.conf": inner}, "edge.conf", "inner.conf")
	assert.Contains(t, got, "edge.conf:07 -> 127.0.0.1:8081 -> ?")
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "edge.conf"), []byte(edge), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inner.conf"), []byte(inner), 0o644))
	m := analyzed([]string{filepath.Join(dir, "edge.conf"), filepath.Join(dir, "inner.conf")}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	alb, err := model.BalancerHop("aws-alb", "--behind", model.Pos{})
	require.NoError(t, err)
	be, err := model.BackendHop("uvicorn", "--backend", model.Pos{})
	require.NoError(t, err)
	m.Chain.Hops = []*model.Hop{alb, be}

	var got []string
	for _, p := range chain.Describe(m.Model, m.Chain) {
		var names []string
		for _, s := range p.Steps {
			names = append(names, strings.ReplaceAll(s.Name, filepath.ToSlash(dir)+"/", ""))
		}
		got = append(got, strings.Join(names, " | "))
	}
	assert.Equal(t, []string{
		"balancer aws-alb | nginx edge.conf location /api/ | nginx inner.conf location / | backend uvicorn",
		"balancer aws-alb | nginx edge.conf location /admin/ | nginx inner.conf location /internal/admin/ | backend uvicorn",
		"balancer aws-alb | nginx edge.conf location /svc/ | backend uvicorn",
	}, got)

	p := chain.Describe(m.Model, m.Chain)[0]
	edgeStep := p.Steps[1]
	assert.Equal(t, 60*time.Second, edgeStep.Waits.Value)
	assert.Equal(t, 1, edgeStep.Attempts)
	assert.Equal(t, 75*time.Second, edgeStep.Idle.Value)
	assert.Equal(t, 60*time.Second, edgeStep.PoolIdle.Value, "upstream blocks pool by default on the newest nginx")
	assert.Equal(t, time.Hour, edgeStep.Lifetime.Value)
	assert.Equal(t, 5*time.Second, p.Steps[3].Idle.Value)
}

// TestDeploymentsLinkOnlyWhenRelated: configurations found by walking a
// directory link only when they sit in the same directory or one directly
// above the other; named on the command line, they always do.
func TestDeploymentsLinkOnlyWhenRelated(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	e := write("shop/edge/nginx.conf", edge)
	i := write("blog/internal/nginx.conf", inner)
	opts := load.Options{Targets: []model.Target{{Product: model.Nginx}}}
	assert.Empty(t, analyzed([]string{root}, opts).Chain.Links, "unrelated directories")
	assert.NotEmpty(t, analyzed([]string{e, i}, opts).Chain.Links, "named together")

	write("shop/internal/nginx.conf", inner)
	assert.Empty(t, analyzed([]string{filepath.Join(root, "shop")}, opts).Chain.Links, "sibling directories")
	require.NoError(t, os.Rename(filepath.Join(root, "shop/internal/nginx.conf"), filepath.Join(root, "shop/edge/inner.conf")))
	assert.NotEmpty(t, analyzed([]string{filepath.Join(root, "shop")}, opts).Chain.Links, "the same directory")
}

func TestHostNameLinksOnlyConfigurationsNamedTogether(t *testing.T) {
	root := t.TempDir()
	api := "events {}\nhttp {\n    upstream app { server 10.0.0.1:8000; }\n    server {\n        listen 9000;\n        location / { proxy_pass http://app; }\n    }\n}\n"
	for rel, body := range map[string]string{"deploy/edge/edge.conf": edge, "deploy/api/api.conf": api} {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	opts := load.Options{Targets: []model.Target{{Product: model.Nginx}}}
	assert.Empty(t, analyzed([]string{root}, opts).Chain.Links, "api:9000 is only a name in a directory walk")
	m := analyzed([]string{filepath.Join(root, "deploy/edge/edge.conf"), filepath.Join(root, "deploy/api/api.conf")}, opts)
	assert.Len(t, m.Chain.Links, 1)
}

// analysis is a loaded model and the chain it is linked into, with the
// loaders' and the path analysis' diagnostics.
type analysis struct {
	*model.Model
	Chain       *model.Chain
	Diagnostics []model.Diagnostic
}

// analyzed loads paths and links them, as a run does.
func analyzed(paths []string, opts load.Options) analysis {
	m := load.Load(paths, opts)
	c, ds := chain.Analyze(m.Proxies, nil, 0)
	return analysis{Model: m, Chain: c, Diagnostics: append(append([]model.Diagnostic{}, m.Diagnostics...), ds...)}
}
