package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

// runStdin runs the program in dir with stdin as its standard input.
func runStdin(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var stdout, stderr bytes.Buffer
	code := runIO(args, strings.NewReader(stdin), &stdout, &stderr, noEnv)
	return code, stdout.String(), stderr.String()
}

type jsonFinding struct {
	Rule     string
	File     string
	Line     int
	Column   int
	Severity string
	Message  string
}

func jsonFindings(t *testing.T, out string) []jsonFinding {
	t.Helper()
	var doc struct{ Findings []jsonFinding }
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	return doc.Findings
}

// dumpTree writes a configuration of three levels: nginx.conf includes
// conf.d/*.conf, and conf.d/app.conf includes a snippet. Each level holds
// something a rule flags.
func dumpTree(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	writeFile(t, dir, "nginx.conf", "events {}\n\nhttp {\n"+nginxtest.HTTPTempPaths+
		"    access_log logs/access.log;\n\n    include conf.d/*.conf;\n}\n")
	writeFile(t, dir, "conf.d/app.conf", `upstream api {
    server 10.0.0.1:8000;
    server 10.0.0.2:8000;
}

server {
    listen 8080;

    location /api/ {
        include snippets/retry.conf;
        proxy_pass http://api;
    }

    location /static/ {
        proxy_pass http://10.0.0.9:8000;
    }
}
`)
	writeFile(t, dir, "conf.d/other.conf", "server {\n    listen 8081;\n    location / {\n        proxy_pass http://10.0.0.7:9000;\n    }\n}\n")
	writeFile(t, dir, "snippets/retry.conf", "# Retries for the API.\nproxy_next_upstream error timeout http_502 non_idempotent;\n")
	return dir
}

// nginxDump runs the real "nginx -T" on the tree, with nginx's pid file
// and error log kept in the tree.
func nginxDump(t *testing.T, dir string) string {
	t.Helper()
	bin := nginxtest.Require(t)
	cmd := boundedCommand(t, time.Minute, bin, "-T", "-q", "-p", dir+"/", "-e", filepath.Join(dir, "logs", "error.log"),
		"-c", filepath.Join(dir, "nginx.conf"), "-g", "pid logs/nginx.pid;")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "nginx -T: %s", stderr.String())
	return stdout.String()
}

// TestNginxDumpFromStdin pipes a real nginx -T dump to proxylint: the
// findings are those of linting the files themselves, at the same files,
// lines and columns.
func TestNginxDumpFromStdin(t *testing.T) {
	dir := dumpTree(t)
	dump := nginxDump(t, dir)
	require.Contains(t, dump, "# configuration file "+filepath.Join(dir, "snippets/retry.conf")+":")

	code, want, errOut := runCLI(t, dir, "--no-config", "--format", "json", "nginx.conf")
	require.Empty(t, errOut)
	require.Equal(t, exitFindings, code)
	files := jsonFindings(t, want)
	require.NotEmpty(t, files)
	var seen []string
	for _, f := range files {
		seen = append(seen, f.Rule+" "+f.File)
	}
	assert.Contains(t, seen, "retry-timeout-write snippets/retry.conf")
	assert.Contains(t, seen, "upstream-no-keepalive conf.d/app.conf")
	assert.Contains(t, seen, "upstream-no-keepalive conf.d/other.conf")

	code, got, errOut := runStdin(t, dir, dump, "--no-config", "--format", "json", "-")
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, files, jsonFindings(t, got))

	// The text report, with its quoted lines, is the same too.
	_, wantText, _ := runCLI(t, dir, "--no-config", "--no-color", "nginx.conf")
	_, gotText, _ := runStdin(t, dir, dump, "--no-config", "--no-color", "-")
	assert.Equal(t, wantText, gotText)

	// So is the dump saved to a file, and with nginx's own messages in
	// front (2>&1).
	writeFile(t, dir, "dump.txt", "nginx: the configuration file "+filepath.Join(dir, "nginx.conf")+" syntax is ok\n"+
		"nginx: configuration file "+filepath.Join(dir, "nginx.conf")+" test is successful\n"+dump)
	code, gotFile, errOut := runCLI(t, dir, "--no-config", "--format", "json", "dump.txt")
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, files, jsonFindings(t, gotFile))
}

// TestNginxDumpNeverReadsTheDisk: includes resolve to the dumped copies.
// A file the dump lacks is a note, even when it exists on the disk.
func TestNginxDumpNeverReadsTheDisk(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	snippet := filepath.Join(dir, "snippet.conf")
	// On the disk the snippet would be flagged; the dump lacks it.
	writeFile(t, dir, "snippet.conf", "proxy_next_upstream error timeout non_idempotent;\n")
	writeFile(t, dir, "app.conf", "server {\n    listen 80;\n    location / {\n        proxy_pass http://10.0.0.1:80;\n    }\n}\n")
	dump := "# configuration file " + main + ":\n" +
		"events {}\nhttp {\n    include app.conf;\n    include snippet.conf;\n}\n\n" +
		"# configuration file " + filepath.Join(dir, "app.conf") + ":\n" +
		"server {\n    listen 80;\n    location / {\n        proxy_pass http://127.0.0.1:80;\n    }\n}\n\n"
	code, out, errOut := runStdin(t, dir, dump, "--no-config", "--format", "json", "-")
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	fs := jsonFindings(t, out)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+" "+f.File+":"+itoa(f.Line)+" "+f.Severity)
	}
	assert.Contains(t, got, "nginx-include nginx.conf:4 note")
	assert.Contains(t, got, "upstream-no-keepalive app.conf:4 warning")
	for _, f := range fs {
		assert.NotEqual(t, "retry-timeout-write", f.Rule, "the snippet on the disk was read")
		if f.Rule == "nginx-include" {
			assert.Contains(t, f.Message, snippet+" is not in the nginx -T dump")
		}
		if f.Rule == "upstream-no-keepalive" {
			assert.Contains(t, f.Message, "127.0.0.1:80", "the dumped copy of app.conf, not the disk's, was read")
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestNginxFromStdin lints one nginx file from standard input under the
// name --stdin-filename gives it: positions name it, its includes are read
// from the disk next to it, and the .proxylint.yaml found from it applies.
func TestNginxFromStdin(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "deploy/.proxylint.yaml", "rules:\n  disable: [log-format-blind]\n")
	writeFile(t, dir, "deploy/retry.conf", "proxy_next_upstream error timeout non_idempotent;\n")
	src := "events {}\nhttp {\n    upstream api {\n        server 10.0.0.1:80;\n        server 10.0.0.2:80;\n    }\n" +
		"    server {\n        listen 80;\n        location /api/ {\n            include retry.conf;\n            proxy_pass http://api;\n        }\n    }\n}\n"
	writeFile(t, dir, "deploy/nginx.conf", src)

	code, want, errOut := runCLI(t, dir, "--format", "json", "--config", "deploy/.proxylint.yaml", "deploy/nginx.conf")
	require.Empty(t, errOut)
	require.Equal(t, exitFindings, code)
	code, got, errOut := runStdin(t, dir, src, "--format", "json", "--stdin-filename", "deploy/nginx.conf", "-")
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	wantF := jsonFindings(t, want)
	assert.Equal(t, wantF, jsonFindings(t, got))
	var rules []string
	for _, f := range wantF {
		rules = append(rules, f.Rule+" "+f.File)
	}
	assert.Contains(t, rules, "retry-timeout-write deploy/retry.conf")
	assert.NotContains(t, strings.Join(rules, ","), "log-format-blind", "deploy/.proxylint.yaml applies")

	// Without a name, positions say <stdin>.
	_, out, _ := runStdin(t, dir, "events {}\nhttp {\n    server {\n        location / {\n            proxy_pass http://10.0.0.1:80;\n        }\n    }\n}\n",
		"--no-config", "--no-color", "-")
	assert.Contains(t, out, "<stdin>:5:13: warning:")
}

// TestEnvoyFromStdin lints Envoy admin output piped in, as in
// "curl localhost:9901/config_dump | proxylint -", and an Envoy file.
func TestEnvoyFromStdin(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	dump := `{
  "configs": [
    {
      "@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump",
      "dynamic_route_configs": [
        {
          "version_info": "5",
          "route_config": {
            "@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
            "name": "routes_http",
            "virtual_hosts": [{"name": "all", "domains": ["*"], "routes": [
              {"match": {"prefix": "/"}, "route": {"cluster": "svc", "timeout": "20s",
                "retry_policy": {"retry_on": "5xx,gatway-error", "num_retries": 2}}}
            ]}]
          }
        }
      ]
    }
  ]
}
`
	code, out, errOut := runStdin(t, dir, dump, "--no-config", "--format", "json", "-")
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	var got []string
	for _, f := range jsonFindings(t, out) {
		got = append(got, f.Rule+" "+f.File+":"+itoa(f.Line))
	}
	assert.Contains(t, got, "envoy-retry-on-unknown <stdin>:13")

	src, err := os.ReadFile(filepath.Join(root, "fixtures/envoy-retry-on-unknown/bad.yaml"))
	require.NoError(t, err)
	code, want, _ := runCLI(t, root, "--no-config", "--format", "json", "fixtures/envoy-retry-on-unknown/bad.yaml")
	require.Equal(t, exitFindings, code)
	code, out, errOut = runStdin(t, root, string(src), "--no-config", "--format", "json",
		"--stdin-filename", "fixtures/envoy-retry-on-unknown/bad.yaml", "-")
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, jsonFindings(t, want), jsonFindings(t, out))
	// Three warnings, and the note that the cluster "search" is not in
	// the file.
	assert.Len(t, jsonFindings(t, out), 4)
}

func TestStdinErrors(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runStdin(t, dir, "hello world\n", "--no-color", "-")
	assert.Equal(t, exitError, code)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "<stdin>: error: <stdin>: cannot tell whether standard input is an nginx or an Envoy configuration")
	code, _, errOut = runStdin(t, dir, "", "-", "-")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "standard input (\"-\") named 2 times")
	code, _, errOut = runStdin(t, dir, "", "--stdin-filename", "x.conf", "a.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "--stdin-filename without \"-\"")
	code, _, errOut = runCLI(t, dir, "-")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "standard input (\"-\") cannot be read")
}
