package load

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/internal/racedetect"
	"github.com/proxylint/proxylint/model"
)

const siteConf = "server {\n    listen 80;\n    location / {\n        proxy_pass http://10.0.0.1:8000;\n    }\n}\n"

// files lists the model's files relative to dir.
func files(t *testing.T, dir string, m *model.Model) []string {
	t.Helper()
	var out []string
	for _, f := range m.Files {
		rel, err := filepath.Rel(dir, f.Path)
		if err != nil || !filepath.IsAbs(f.Path) {
			rel = f.Path
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// messages lists the fatal diagnostics as "file: message".
func fatals(m *model.Model) []string {
	var out []string
	for _, d := range m.Diagnostics {
		if d.Fatal {
			out = append(out, d.Pos.File+": "+d.Message)
		}
	}
	return out
}

// loadLimit is how long a load may take before a test calls it blocked:
// far beyond what any input of the tests needs, ten times that under the
// race detector.
func loadLimit() time.Duration {
	if racedetect.Enabled {
		return 200 * time.Second
	}
	return 20 * time.Second
}

// loadSoon loads paths and fails the test instead of hanging forever when
// the loader blocks (on a FIFO, say).
func loadSoon(t *testing.T, paths []string, opts Options) *model.Model {
	t.Helper()
	done := make(chan *model.Model, 1)
	go func() { done <- Load(paths, opts) }()
	select {
	case m := <-done:
		return m
	case <-time.After(loadLimit()):
		t.Fatalf("loading %v blocked", paths)
		return nil
	}
}

func TestSymlinkedDirectoryNamedWithoutSlash(t *testing.T) {
	dir := tree(t, map[string]string{"real/site.conf": siteConf})
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "deploy")))
	m := Load([]string{"deploy"}, Options{})
	assert.Empty(t, fatals(m))
	assert.Equal(t, []string{"deploy/site.conf"}, files(t, dir, m))
	require.Len(t, m.Proxies, 1)
}

func TestSitesEnabledSymlinks(t *testing.T) {
	dir := tree(t, map[string]string{
		"nginx/sites-available/a": siteConf,
		"nginx/sites-available/b": siteConf,
	})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "nginx/sites-enabled"), 0o755))
	require.NoError(t, os.Symlink("../sites-available/a", filepath.Join(dir, "nginx/sites-enabled/a")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "nginx/sites-available/b"), filepath.Join(dir, "nginx/sites-enabled/b")))
	m := Load([]string{"nginx/sites-enabled"}, Options{})
	assert.Empty(t, fatals(m))
	assert.Equal(t, []string{"nginx/sites-enabled/a", "nginx/sites-enabled/b"}, files(t, dir, m))
}

func TestSymlinkCycleInTree(t *testing.T) {
	dir := tree(t, map[string]string{"conf/sub/site.conf": siteConf})
	require.NoError(t, os.Symlink("..", filepath.Join(dir, "conf/sub/up")))
	var skipped []string
	m := loadSoon(t, []string{"conf"}, Options{OnSkip: func(p, why string) { skipped = append(skipped, p+": "+why) }})
	assert.Empty(t, fatals(m))
	assert.Equal(t, []string{"conf/sub/site.conf"}, files(t, dir, m))
	assert.Equal(t, []string{"conf/sub/up: directory already read as conf (a symbolic link cycle or a second link)"}, skipped)
}

func TestWalkReportsSkippedFiles(t *testing.T) {
	dir := tree(t, map[string]string{
		"deploy/site.conf":   siteConf,
		"deploy/README.md":   "# notes\n",
		"deploy/old.bak":     siteConf,
		"deploy/.git/config": "[core]\n",
	})
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "deploy/pipe.conf"), 0o644))
	require.NoError(t, os.Symlink("gone.conf", filepath.Join(dir, "deploy/dangling.conf")))
	var skipped []string
	m := loadSoon(t, []string{"deploy"}, Options{Exclude: []string{"*.bak"}, OnSkip: func(p, why string) { skipped = append(skipped, p+": "+why) }})
	assert.Empty(t, fatals(m))
	assert.Equal(t, []string{"deploy/site.conf"}, files(t, dir, m))
	assert.Equal(t, []string{
		"deploy/.git/: hidden directory",
		"deploy/README.md: not an nginx or Envoy configuration",
		"deploy/dangling.conf: a symbolic link to a file that does not exist",
		"deploy/old.bak: excluded",
		"deploy/pipe.conf: not a regular file (named pipe)",
	}, sorted(skipped))
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestNothingToLint(t *testing.T) {
	dir := tree(t, map[string]string{"deploy/README.md": "# notes\n", "app/site.conf": siteConf})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	for _, c := range []struct {
		paths   []string
		exclude []string
		want    []string
	}{
		{[]string{"empty"}, nil, []string{"empty: no nginx or Envoy configuration found in empty"}},
		{[]string{"deploy"}, nil, []string{"deploy: no nginx or Envoy configuration found in deploy"}},
		{[]string{"app"}, []string{"*"}, []string{"app: no nginx or Envoy configuration found in app"}},
		{[]string{"."}, []string{"*.conf"}, []string{".: no nginx or Envoy configuration found in ."}},
		{[]string{"app", "empty"}, nil, []string{"empty: no nginx or Envoy configuration found in empty"}},
	} {
		m := Load(c.paths, Options{Exclude: c.exclude})
		assert.Equal(t, c.want, fatals(m), "%v --exclude %v", c.paths, c.exclude)
	}
}

func TestUnreadableEntriesAreErrors(t *testing.T) {
	dir := tree(t, map[string]string{"deploy/site.conf": siteConf})
	// A link loop: stat fails with ELOOP.
	require.NoError(t, os.Symlink("loop-b", filepath.Join(dir, "deploy/loop-a")))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(dir, "deploy/loop-b")))
	m := Load([]string{"deploy"}, Options{})
	assert.Equal(t, []string{
		"deploy/loop-a: cannot read deploy/loop-a: too many levels of symbolic links",
		"deploy/loop-b: cannot read deploy/loop-b: too many levels of symbolic links",
	}, fatals(m))

	// A dangling link named on the command line.
	require.NoError(t, os.Symlink("missing.conf", filepath.Join(dir, "gone.conf")))
	m = Load([]string{"gone.conf"}, Options{})
	assert.Equal(t, []string{"gone.conf: cannot read gone.conf: a symbolic link to missing.conf, which does not exist"}, fatals(m))
}

// deepDir makes a chain of directories whose path is longer than PATH_MAX
// below dir, using relative creation (as no single path may name it), and
// returns the first directory of the chain.
func deepDir(t *testing.T, dir string) string {
	t.Helper()
	name := strings.Repeat("d", 200)
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	require.NoError(t, err)
	for range 25 { // 25 * 201 bytes > 4096
		require.NoError(t, syscall.Mkdirat(fd, name, 0o755))
		next, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		require.NoError(t, err)
		_ = syscall.Close(fd)
		fd = next
	}
	cfd, err := syscall.Openat(fd, "site.conf", syscall.O_WRONLY|syscall.O_CREAT, 0o644)
	require.NoError(t, err)
	_, err = syscall.Write(cfd, []byte(siteConf))
	require.NoError(t, err)
	_ = syscall.Close(cfd)
	_ = syscall.Close(fd)
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(dir, name)) })
	return filepath.Join(dir, name)
}

func TestPathLongerThanPathMax(t *testing.T) {
	dir := tree(t, map[string]string{"deploy/site.conf": siteConf})
	deepDir(t, filepath.Join(dir, "deploy"))
	m := Load([]string{"deploy"}, Options{})
	f := fatals(m)
	require.Len(t, f, 1, "%v", f)
	assert.Contains(t, f[0], "file name too long")
	assert.True(t, strings.HasPrefix(f[0], "deploy/dddd"), f[0])
}

func TestSpecialFilesAreRefused(t *testing.T) {
	dir := tree(t, map[string]string{})
	fifo := filepath.Join(dir, "pipe.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, c := range []struct {
		path, kind, want string
	}{
		{"pipe.yaml", "", "pipe.yaml: cannot read pipe.yaml: not a regular file (named pipe)"},
		{"pipe.yaml", KindEnvoy, "pipe.yaml: cannot read pipe.yaml: not a regular file (named pipe)"},
		{"pipe.yaml", KindNginx, "pipe.yaml: cannot read pipe.yaml: not a regular file (named pipe)"},
		{"/dev/zero", KindEnvoy, "/dev/zero: cannot read /dev/zero: not a regular file (character device)"},
	} {
		m := loadSoon(t, []string{c.path}, Options{Kind: c.kind})
		assert.Equal(t, []string{c.want}, fatals(m), "%s --kind %q", c.path, c.kind)
	}
	// The loader refuses a FIFO even when it was a file when looked at.
	_, err := ReadRegular(fifo, 0)
	assert.EqualError(t, err, "not a regular file (named pipe)")
	_, err = ReadRegular("/dev/zero", 0)
	assert.EqualError(t, err, "not a regular file (character device)")
}

func TestSizeLimits(t *testing.T) {
	tree(t, map[string]string{
		"a/nginx.conf": "events {}\nhttp { include big.conf; }\n",
		"a/big.conf":   strings.Repeat("# padding\n", 200),
		"b/envoy.yaml": bootstrapYAML,
	})
	m := Load([]string{"a/nginx.conf"}, Options{MaxFileSize: 1000})
	assert.Equal(t, []string{"a/nginx.conf: include \"big.conf\": a/big.conf: file too large (2000 bytes; at most 1000 are read, see --max-file-size)"}, fatals(m))
	m = Load([]string{"b/envoy.yaml"}, Options{MaxFileSize: 100})
	assert.Equal(t, []string{fmt.Sprintf("b/envoy.yaml: cannot read b/envoy.yaml: file too large (%d bytes; at most 100 are read, see --max-file-size)", len(bootstrapYAML))}, fatals(m))

	// The total: the first configuration read uses it up, the second is
	// not read.
	m = loadOneByOne([]string{"a/nginx.conf", "b/envoy.yaml"}, Options{MaxTotalSize: 2020})
	assert.Equal(t, []string{"b/envoy.yaml: b/envoy.yaml was not read: the files read before it hold 2037 bytes, more than the 2020 allowed in one run (raise the limit with --max-total-size)"}, fatals(m))

	// What one configuration expands to through its includes, at the
	// include that goes over.
	m = Load([]string{"a/nginx.conf"}, Options{MaxTotalSize: 1500})
	require.Len(t, m.Diagnostics, 1)
	d := m.Diagnostics[0]
	assert.True(t, d.Fatal)
	assert.Equal(t, "a/nginx.conf:2:16: includes expand to more than 1500 bytes (each inclusion counted); the configuration was not read further (raise the limit with --max-total-size)", d.Error())
}

// loadOneByOne loads with one worker, so that the order of reading, and
// with it what the total budget stops, is the order of paths.
func loadOneByOne(paths []string, opts Options) *model.Model {
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	return Load(paths, opts)
}

const bootstrapYAML = `static_resources:
  clusters:
  - name: app
    connect_timeout: 2s
    type: STATIC
    load_assignment:
      cluster_name: app
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: { address: 10.0.0.1, port_value: 8000 }
`

// loopConf is an entry server in front of an upstream of n local servers
// that each proxy back to that upstream: the simple request paths number
// n! and more.
func loopConf(n int) string {
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n    upstream loop {\n")
	for i := range n {
		fmt.Fprintf(&b, "        server 127.0.0.1:%d;\n", 9001+i)
	}
	b.WriteString("    }\n    server {\n        listen 8000;\n        location / { proxy_pass http://loop; }\n    }\n")
	for i := range n {
		fmt.Fprintf(&b, "    server {\n        listen 127.0.0.1:%d;\n        location / { proxy_pass http://loop; }\n    }\n", 9001+i)
	}
	b.WriteString("}\n")
	return b.String()
}

func TestRequestPathBudget(t *testing.T) {
	tree(t, map[string]string{"loop/nginx.conf": loopConf(4)})
	m := Load([]string{"loop/nginx.conf"}, Options{})
	_, ds := chain.Analyze(m.Proxies, nil, 24) // 4! paths: within the budget
	assert.Empty(t, fatals(m))
	assert.Empty(t, ds)

	m = Load([]string{"loop/nginx.conf"}, Options{})
	_, ds = chain.Analyze(m.Proxies, nil, 23)
	assert.Empty(t, fatals(m), "the path analysis reports its own, never into the model")
	var got []string
	for _, d := range ds {
		if d.Fatal {
			got = append(got, d.Pos.String()+": "+d.Message)
		}
	}
	assert.Equal(t, []string{"loop/nginx.conf:11:9: more than 23 request paths lead from location / through the loaded configurations (hops that proxy back to one another); only 23 were analysed (raise the limit with --max-paths)"}, got)
}

// Links are followed into the linted tree only: a committed link to a
// directory or file elsewhere on the machine is skipped, and a named
// directory below the working directory that links elsewhere is an error,
// unless --include-root widens the tree.
func TestSymlinksOutsideTheTree(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.conf"), []byte(siteConf), 0o600))
	dir := tree(t, map[string]string{"deploy/site.conf": siteConf})
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "deploy/etc")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.conf"), filepath.Join(dir, "deploy/secret.conf")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "elsewhere")))
	real, err := filepath.EvalSymlinks(outside)
	require.NoError(t, err)

	var skipped []string
	m := Load([]string{"deploy"}, Options{OnSkip: func(p, why string) { skipped = append(skipped, p+": "+why) }})
	assert.Empty(t, fatals(m))
	assert.Equal(t, []string{"deploy/site.conf"}, files(t, dir, m))
	assert.Equal(t, []string{
		"deploy/etc: a symbolic link to " + real + ", outside the linted tree (widen it with --include-root)",
		"deploy/secret.conf: a symbolic link to " + filepath.Join(real, "secret.conf") + ", outside the linted tree (widen it with --include-root)",
	}, skipped)

	m = Load([]string{"elsewhere"}, Options{})
	assert.Equal(t, []string{"elsewhere: cannot read elsewhere: a symbolic link to " + real + ", outside the working directory; name " + real + " itself, or widen the tree with --include-root"}, fatals(m))

	m = Load([]string{"elsewhere", "deploy"}, Options{IncludeRoots: []string{outside}})
	assert.Empty(t, fatals(m))
	// Each file once, whichever link reached it first.
	assert.Equal(t, []string{"elsewhere/secret.conf", "deploy/site.conf"}, files(t, dir, m))
}

// /etc/nginx/sites-enabled named from anywhere: its links lead into
// sites-available beside it.
func TestSitesEnabledNamedFromElsewhere(t *testing.T) {
	etc := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(etc, "nginx/sites-available"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(etc, "nginx/sites-enabled"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(etc, "nginx/sites-available/default"), []byte(siteConf), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(etc, "nginx/sites-available/default"), filepath.Join(etc, "nginx/sites-enabled/default")))
	tree(t, map[string]string{})
	enabled := filepath.Join(etc, "nginx/sites-enabled")
	m := Load([]string{enabled}, Options{})
	assert.Empty(t, fatals(m))
	require.Len(t, m.Files, 1)
	assert.Equal(t, filepath.Join(enabled, "default"), m.Files[0].Path)
}
