package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

// TestPreCommitHooks runs the hooks of .pre-commit-hooks.yaml with the real
// pre-commit, as a user's repository does: a .pre-commit-config.yaml naming
// the hook repository at a commit, "pre-commit run" of the two lint hooks
// from a scratch git repository whose staged nginx.conf and envoy.yaml are
// bad must fail and print the findings; with clean ones it must pass. Each
// hook leaves the other's files and unrelated files alone. Then
// proxylint-fix on a staged nginx.conf it can fix: the first run fixes the
// file and fails, and after "git add" the second passes.
//
// It needs git, pre-commit and the Go toolchain (pre-commit builds the
// hook with "go install"), and no network beyond the Go module proxy. It
// skips when pre-commit or git is missing, unless PROXYLINT_REQUIRE_PRECOMMIT=1
// (set by .ci/run). The cases share one hook repository and one pre-commit
// home (sharedHookRepo, preCommitEnv), so pre-commit builds the hooks once.
func TestPreCommitHooks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds proxylint through pre-commit; skipped with -short")
	}
	for _, tool := range []string{"git", "pre-commit", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " is not installed; on Debian: apt-get install git pre-commit"
			if os.Getenv("PROXYLINT_REQUIRE_PRECOMMIT") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	hookRepo := sharedHookRepo(t)
	t.Run("lint", func(t *testing.T) {
		t.Parallel()
		testPreCommitLintHooks(t, hookRepo)
	})
	t.Run("fix", func(t *testing.T) {
		t.Parallel()
		testPreCommitFixHook(t, hookRepo)
	})
	t.Run("kubernetes", func(t *testing.T) {
		t.Parallel()
		testPreCommitKubernetesHook(t, hookRepo)
	})
}

// testPreCommitKubernetesHook runs proxylint-kubernetes on staged
// manifests: an Ingress whose retries of POSTs the controller's ConfigMap,
// staged beside it, turns on fails the commit; a Deployment is skipped,
// and YAML that is no manifest (a workflow, a chart's values) is left
// alone. With the retries off, the commit passes.
func testPreCommitKubernetesHook(t *testing.T, hookRepo string) {
	scratch := t.TempDir()
	env := preCommitEnv(t, scratch)
	user := filepath.Join(scratch, "kube")
	require.NoError(t, os.MkdirAll(user, 0o755))
	git(t, user, env, "init", "-q")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "retry-timeout-write", "ingress-nginx-split", name))
		require.NoError(t, err)
		return string(b)
	}
	ingress := read("shop-ingress.yaml")
	files := map[string]string{
		"deploy/k8s/shop-ingress.yaml":         ingress,
		"deploy/k8s/controller-configmap.yaml": read("controller-configmap.yaml"),
		"deploy/k8s/deployment.yaml":           "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  replicas: 3\n",
		"deploy/k8s/chart/values.yaml":         "replicaCount: 3\n",
		"deploy/k8s/chart/templates/svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n",
		".github/workflows/ci.yml":             "on: push\njobs: {}\n",
		"README.md":                            "a shop\n",
	}
	var names []string
	for name, src := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(user, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(user, name), []byte(src), 0o644))
		names = append(names, name)
	}
	git(t, user, env, append([]string{"add"}, names...)...)
	out, code := tryRepo(t, user, env, hookRepo, "proxylint-kubernetes")
	assert.Equal(t, 1, code, "the Ingress that replays POSTs fails the commit:\n%s", out)
	assert.Regexp(t, `proxylint \(Kubernetes\)\.+Failed`, out)
	assert.Contains(t, out, "deploy/k8s/shop-ingress.yaml:8:54: error: nginx.ingress.kubernetes.io/proxy-next-upstream error timeout http_502 non_idempotent replays POST, PATCH and LOCK requests")
	assert.Contains(t, out, "[retry-timeout-write]")
	assert.Contains(t, out, "1 error")
	for _, other := range []string{"values.yaml", "templates", "ci.yml", "README.md", "deployment.yaml"} {
		assert.NotContains(t, out, other)
	}

	// No retries: nothing to say, and the commit goes through.
	require.NoError(t, os.WriteFile(filepath.Join(user, "deploy/k8s/shop-ingress.yaml"), []byte(strings.Replace(ingress, `"error timeout http_502"`, `"off"`, 1)), 0o644))
	git(t, user, env, "add", "deploy/k8s/shop-ingress.yaml")
	out, code = tryRepo(t, user, env, hookRepo, "proxylint-kubernetes")
	assert.Equal(t, 0, code, "clean manifests pass:\n%s", out)
	assert.Regexp(t, `proxylint \(Kubernetes\)\.+Passed`, out)
}

// testPreCommitLintHooks runs the lint hooks on bad, clean and included
// files.
func testPreCommitLintHooks(t *testing.T, hookRepo string) {
	scratch := t.TempDir()
	user := filepath.Join(scratch, "user")
	require.NoError(t, os.MkdirAll(user, 0o755))
	env := preCommitEnv(t, scratch)
	git(t, user, env, "init", "-q")

	// Both bad; README.md is no hook's business (proxylint would fail on
	// it).
	cleanNginx := strings.Replace(literalProxyPass, "proxy_pass http://127.0.0.1:8000;", "return 204;", 1)
	cleanEnvoy := strings.Replace(envoyUnknownFilter, "          - name: acme.filters.http.audit\n            typed_config:\n              \"@type\": type.googleapis.com/acme.audit.v1.Audit\n", "", 1)
	require.NotEqual(t, envoyUnknownFilter, cleanEnvoy)
	badEnvoy := strings.Replace(cleanEnvoy, "    connect_timeout: 1s\n", "    connect_timeout: 1s\n    retry_budget_percent: 1\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(user, "nginx.conf"), []byte(literalProxyPass), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(user, "envoy.yaml"), []byte(badEnvoy), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(user, "README.md"), []byte("a site\n"), 0o644))
	git(t, user, env, "add", "nginx.conf", "envoy.yaml", "README.md")
	out, code := tryRepo(t, user, env, hookRepo, lintHooks...)
	assert.NotEqual(t, 0, code, "bad staged configurations fail the hooks:\n%s", out)
	assert.Regexp(t, `proxylint \(nginx\)\.+Failed`, out)
	assert.Contains(t, out, "nginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000 has no upstream block")
	assert.Contains(t, out, "[upstream-no-keepalive]")
	assert.Regexp(t, `proxylint \(Envoy\)\.+Failed`, out)
	assert.Contains(t, out, "envoy.yaml:")
	assert.Contains(t, out, "retry_budget_percent")
	assert.NotContains(t, out, "README.md")

	// Both clean.
	require.NoError(t, os.WriteFile(filepath.Join(user, "nginx.conf"), []byte(cleanNginx), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(user, "envoy.yaml"), []byte(cleanEnvoy), 0o644))
	git(t, user, env, "add", "nginx.conf", "envoy.yaml")
	out, code = tryRepo(t, user, env, hookRepo, lintHooks...)
	assert.Equal(t, 0, code, "clean staged configurations pass:\n%s", out)
	assert.Regexp(t, `proxylint \(nginx\)\.+Passed`, out)
	assert.Regexp(t, `proxylint \(Envoy\)\.+Passed`, out)

	// A staged fragment alone is linted in the context of the committed
	// nginx.conf that includes it: the upstream it proxies to, with two
	// servers, is defined there.
	require.NoError(t, os.WriteFile(filepath.Join(user, "nginx.conf"), []byte(`events {}
http {
    log_format timing '$request $status $request_time $upstream_status $upstream_response_time';
    access_log logs/access.log timing;
    upstream api {
        server 10.0.0.1:8000;
        server 10.0.0.2:8000;
        keepalive 16;
    }
    include conf.d/*.conf;
}
`), 0o644))
	git(t, user, env, "add", "nginx.conf", "envoy.yaml")
	git(t, user, env, "-c", "user.name=proxylint", "-c", "user.email=proxylint@example.com", "commit", "-qm", "base", "--no-verify")
	require.NoError(t, os.MkdirAll(filepath.Join(user, "conf.d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(user, "conf.d", "api.conf"), []byte(`server {
    listen 80;
    location /api/ {
        proxy_pass http://api;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_next_upstream error timeout non_idempotent;
        proxy_next_upstream_tries 2;
        proxy_next_upstream_timeout 10s;
    }
}
`), 0o644))
	git(t, user, env, "add", "conf.d/api.conf")
	out, code = tryRepo(t, user, env, hookRepo, lintHooks...)
	assert.NotEqual(t, 0, code, "the staged fragment fails in its context:\n%s", out)
	assert.Contains(t, out, `conf.d/api.conf:7:9: error: proxy_next_upstream error timeout non_idempotent replays POST, PATCH and LOCK requests`)
	assert.Contains(t, out, `upstream "api" (2 servers)`)

}

// testPreCommitFixHook runs proxylint-fix, in a repository of its own: the
// literal proxy_pass gets an upstream block with a pool.
func testPreCommitFixHook(t *testing.T, hookRepo string) {
	scratch := t.TempDir()
	env := preCommitEnv(t, scratch)
	fixer := filepath.Join(scratch, "fixer")
	require.NoError(t, os.MkdirAll(fixer, 0o755))
	git(t, fixer, env, "init", "-q")
	conf := filepath.Join(fixer, "nginx.conf")
	require.NoError(t, os.WriteFile(conf, []byte(literalProxyPass), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(fixer, "README.md"), []byte("a site\n"), 0o644))
	git(t, fixer, env, "add", "nginx.conf", "README.md")
	out, code := tryRepo(t, fixer, env, hookRepo, "proxylint-fix")
	assert.NotEqual(t, 0, code, "a run that fixed files fails:\n%s", out)
	assert.Regexp(t, `proxylint \(fix\)\.+Failed`, out)
	assert.Contains(t, out, "files were modified by this hook")
	assert.Contains(t, out, "proxylint: fixed 1 finding in 1 file")
	assert.NotContains(t, out, "README.md")
	got, err := os.ReadFile(conf)
	require.NoError(t, err)
	assert.Equal(t, fixedLiteralProxyPass, string(got))
	git(t, fixer, env, "add", "nginx.conf")
	out, code = tryRepo(t, fixer, env, hookRepo, "proxylint-fix")
	assert.Equal(t, 0, code, "the fixed file, staged, passes:\n%s", out)
	assert.Regexp(t, `proxylint \(fix\)\.+Passed`, out)
	got, err = os.ReadFile(conf)
	require.NoError(t, err)
	assert.Equal(t, fixedLiteralProxyPass, string(got), "the second run changes nothing")
}

// lintHooks are the hooks that only lint.
var lintHooks = []string{"proxylint-nginx", "proxylint-envoy"}

// TestPreCommitManifest checks the hook definitions without running them:
// golang hooks without a language_version (pre-commit would download Go),
// one run for all files, and file patterns that pick nginx and Envoy files
// and leave the rest alone.
func TestPreCommitManifest(t *testing.T) {
	b, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	require.NoError(t, err)
	var hooks []struct {
		ID              string `yaml:"id"`
		Entry           string `yaml:"entry"`
		Language        string `yaml:"language"`
		Files           string `yaml:"files"`
		Exclude         string `yaml:"exclude"`
		RequireSerial   bool   `yaml:"require_serial"`
		LanguageVersion string `yaml:"language_version"`
	}
	require.NoError(t, yaml.Unmarshal(b, &hooks))
	require.Len(t, hooks, 4)
	var ids, entries []string
	for _, h := range hooks {
		ids = append(ids, h.ID)
		entries = append(entries, h.Entry)
	}
	assert.Equal(t, []string{"proxylint-nginx", "proxylint-envoy", "proxylint-kubernetes", "proxylint-fix"}, ids)
	assert.Equal(t, []string{"proxylint --kind nginx --", "proxylint --kind envoy --", "proxylint --kind kubernetes --", "proxylint --fix --"}, entries)
	// The fix hook takes the files of the nginx and Envoy hooks.
	assert.Equal(t, hooks[0].Files+"|"+hooks[1].Files, hooks[3].Files)
	match := map[string][]string{
		"proxylint-nginx": {"nginx.conf", "etc/nginx/nginx.conf", "deploy/nginx/conf.d/app.conf", "conf.d/a.conf", "sites-enabled/default", "sites-available/example.com", "snippets/ssl.conf", "site.vhost"},
		"proxylint-envoy": {"envoy.yaml", "deploy/envoy-front.yml", "envoy/listeners/a.yaml", "envoy/bootstrap.json"},
		"proxylint-kubernetes": {"k8s/ingress.yaml", "deploy/k8s/shop/ingress.yml", "kubernetes/gateway.yaml", "kube/configmap.json",
			"manifests/base/kustomization.yaml", "k8s/chart-values-free/ingress.yaml"},
	}
	match["proxylint-fix"] = append(append([]string{}, match["proxylint-nginx"]...), match["proxylint-envoy"]...)
	miss := map[string][]string{
		"proxylint-nginx": {"README.md", "nginx/mime.types", "docker/app.conf", "envoy.yaml"},
		"proxylint-envoy": {".github/workflows/ci.yaml", "k8s/deployment.yaml", "nginx.conf"},
		"proxylint-fix":   {"README.md", "nginx/mime.types", "docker/app.conf", ".github/workflows/ci.yaml", "k8s/deployment.yaml"},
		"proxylint-kubernetes": {"README.md", "nginx.conf", "envoy.yaml", ".github/workflows/ci.yaml", "docker-compose.yml", "package.json",
			"deploy/values.yaml", "k8s/chart/values.yaml", "k8s/chart/values-prod.yaml", "k8s/chart/Chart.yaml", "k8s/chart/templates/ingress.yaml", "k8s/README.md"},
	}
	for _, h := range hooks {
		assert.Equal(t, "golang", h.Language, h.ID)
		assert.Empty(t, h.LanguageVersion, h.ID)
		assert.True(t, h.RequireSerial, h.ID)
		assert.True(t, strings.HasPrefix(h.Entry, "proxylint "), h.ID)
		// pre-commit matches with Python's re.search; these patterns use
		// only syntax Go's regexp reads the same way.
		re := regexp.MustCompile(h.Files)
		exclude := regexp.MustCompile("^$")
		if h.Exclude != "" {
			exclude = regexp.MustCompile(h.Exclude)
		}
		runs := func(p string) bool { return re.MatchString(p) && !exclude.MatchString(p) }
		require.Contains(t, match, h.ID)
		for _, p := range match[h.ID] {
			assert.True(t, runs(p), "%s should run on %s", h.ID, p)
		}
		for _, p := range miss[h.ID] {
			assert.False(t, runs(p), "%s should not run on %s", h.ID, p)
		}
	}
}

// copyModule copies the module's source (what go test sees: hidden
// directories left out, the hook manifest kept) into a fresh git repository
// at dst, as the repository pre-commit clones.
func copyModule(t *testing.T, dst string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || (strings.HasPrefix(d.Name(), ".") && d.Name() != ".pre-commit-hooks.yaml") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	require.NoError(t, err)
	env := preCommitEnv(t, filepath.Dir(dst))
	git(t, dst, env, "init", "-q")
	git(t, dst, env, "add", "-A")
	git(t, dst, env, "commit", "-q", "-m", "proxylint under test")
	return dst
}

// preCommitEnv keeps pre-commit and git inside the scratch directory and
// the run's pre-commit home (preCommitHome), and lets the hook build
// offline from the module cache this test runs with.
func preCommitEnv(t *testing.T, scratch string) []string {
	t.Helper()
	gomodcache, err := boundedCommand(t, time.Minute, "go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	gocache, err := boundedCommand(t, time.Minute, "go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	return append(os.Environ(),
		"PRE_COMMIT_HOME="+preCommitHome(t),
		"GOMODCACHE="+strings.TrimSpace(string(gomodcache)),
		"GOCACHE="+strings.TrimSpace(string(gocache)),
		"GOTOOLCHAIN=local",
		"GIT_AUTHOR_NAME=proxylint test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=proxylint test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(scratch, "gitconfig"),
		"NO_COLOR=1", "TERM=dumb",
	)
}

func git(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := boundedCommand(t, time.Minute, "git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
}

// preCommitTimeout bounds one "pre-commit run": the first one in a run
// installs the hooks, which builds the module on a cold build cache.
const preCommitTimeout = 8 * time.Minute

// tryRepo runs the named hooks of repo, one after the other, on the staged
// files of dir, as a user's .pre-commit-config.yaml naming repo at its
// current commit does ("pre-commit try-repo" without its private store):
// their output together, and the first non-zero exit code. The hooks are
// installed into env's PRE_COMMIT_HOME once for each repository and commit.
func tryRepo(t *testing.T, dir string, env []string, repo string, hooks ...string) (string, int) {
	t.Helper()
	require.NotEmpty(t, hooks)
	rev := boundedCommand(t, time.Minute, "git", "-C", repo, "rev-parse", "HEAD")
	rev.Env = env
	sha, err := rev.Output()
	require.NoError(t, err, "git -C %s rev-parse HEAD", repo)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "repos:\n  - repo: %q\n    rev: %s\n    hooks:\n", repo, strings.TrimSpace(string(sha)))
	for _, h := range hooks {
		fmt.Fprintf(&cfg, "      - id: %s\n", h)
	}
	config := filepath.Join(t.TempDir(), ".pre-commit-config.yaml")
	require.NoError(t, os.WriteFile(config, []byte(cfg.String()), 0o644))
	var all strings.Builder
	code := 0
	for _, h := range hooks {
		cmd := boundedCommand(t, preCommitTimeout, "pre-commit", "run", h, "--config", config, "--color", "never")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		all.Write(out)
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("pre-commit run %s: %v\n%s", h, err, out)
		}
		if ee != nil && code == 0 {
			code = ee.ExitCode()
		}
	}
	return all.String(), code
}
