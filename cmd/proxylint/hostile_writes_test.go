//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// What proxylint writes (reports, baselines, fixes, diffs) must not damage
// what it writes to, whatever the path named leads to. Devices and FIFOs
// are made inside each test's own directory: nothing here touches the
// machine's /dev.

// mknodChar makes a character device node with the numbers of a device
// the kernel always has (1,3 is what /dev/null is, 1,7 /dev/full).
func mknodChar(t *testing.T, path string, major, minor uint32) {
	t.Helper()
	err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(major, minor)))
	if errors.Is(err, syscall.EPERM) {
		t.Skip("making device nodes needs root (CI runs these tests as root)")
	}
	require.NoError(t, err)
}

// requireCharDevice checks that path is still the device node made by
// mknodChar, not a file renamed over it.
func requireCharDevice(t *testing.T, path string, major, minor uint32) {
	t.Helper()
	var st unix.Stat_t
	require.NoError(t, unix.Lstat(path, &st))
	require.Equal(t, uint32(unix.S_IFCHR), st.Mode&unix.S_IFMT, "%s is still a character device", path)
	assert.Equal(t, unix.Mkdev(major, minor), st.Rdev, "%s", path)
}

// finishesWithin runs fn and fails the test when it does not return
// within d.
func finishesWithin(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %s", what, d)
	}
}

// runCLIBounded is runCLIHere with a bound on its time.
func runCLIBounded(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	finishesWithin(t, 60*time.Second, strings.Join(args, " "), func() { code, out, errOut = runCLIHere(args...) })
	return code, out, errOut
}

func dirWithGitMarker(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	return dir
}

// A report or a baseline named to a character device is written into it:
// the device stays a device (renamed over, it used to become a regular
// file: /dev/null run as root), and a full device is exit 2 naming it.
func TestReportsIntoDevicesAreWrittenInPlace(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	mknodChar(t, filepath.Join(dir, "null"), 1, 3)
	mknodChar(t, filepath.Join(dir, "full"), 1, 7)
	t.Chdir(dir)
	for _, c := range []struct {
		args   []string
		code   int
		errOut string
	}{
		{[]string{"--output", "null", "nginx.conf"}, exitFindings, ""},
		{[]string{"--format", "sarif=null", "--format", "json", "nginx.conf"}, exitFindings, ""},
		{[]string{"--write-baseline", "null", "nginx.conf"}, exitClean, "proxylint: recorded 2 findings in null\n"},
		{[]string{"--output", "full", "nginx.conf"}, exitError, "proxylint: --output: full: no space left on device\n"},
		{[]string{"--format", "json=full", "nginx.conf"}, exitError, "proxylint: --format json: full: no space left on device\n"},
		{[]string{"--write-baseline", "full", "nginx.conf"}, exitError, "proxylint: --write-baseline: full: no space left on device\n"},
	} {
		code, _, errOut := runCLIBounded(t, c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, errOut)
		assert.Equal(t, c.errOut, errOut, "%v", c.args)
		requireCharDevice(t, filepath.Join(dir, "null"), 1, 3)
		requireCharDevice(t, filepath.Join(dir, "full"), 1, 7)
	}
	left, err := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
}

// A report named to a terminal is written to it in place: the terminal
// (of a devpts instance in the test's own directory, see openTerminalAt)
// shows the report, and its node is not replaced by a file.
func TestReportIntoTerminal(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	_, path, read := openTerminalAt(t)
	var before unix.Stat_t
	require.NoError(t, unix.Stat(path, &before))
	t.Chdir(dir)
	code, out, errOut := runCLIBounded(t, "--no-config", "--output", path, "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Empty(t, out)
	assert.Empty(t, errOut)
	var after unix.Stat_t
	require.NoError(t, unix.Stat(path, &after))
	assert.Equal(t, uint32(unix.S_IFCHR), after.Mode&unix.S_IFMT, "%s is still a terminal", path)
	assert.Equal(t, before.Rdev, after.Rdev, "%s is the same terminal", path)
	assert.Equal(t, before.Ino, after.Ino, "%s was not replaced", path)
	got := read()
	assert.Contains(t, got, "nginx.conf:6:13: warning:")
	assert.NotContains(t, got, ansiEscape, "a report written to a named file is not coloured")
}

// fifoReader opens a FIFO for reading without waiting for a writer and
// collects what is written to it until stop is called.
func fifoReader(t *testing.T, path string) (stop func() string) {
	t.Helper()
	// Read and write: the open does not wait for a writer, and the
	// reader never sees end of file before stop.
	rd, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	var mu sync.Mutex
	var got bytes.Buffer
	stopped := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			_ = rd.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			n, err := rd.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
			select {
			case <-stopped:
				if n == 0 {
					return
				}
			default:
			}
		}
	}()
	return func() string {
		close(stopped)
		<-done
		_ = rd.Close()
		mu.Lock()
		defer mu.Unlock()
		return got.String()
	}
}

// A FIFO with a reader gets the report; one nobody reads is an error at
// once, not a run that blocks.
func TestReportIntoFIFO(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	t.Chdir(dir)

	stop := fifoReader(t, fifo)
	code, out, errOut := runCLIBounded(t, "--format", "json", "--output", "fifo", "nginx.conf")
	got := stop()
	assert.Equal(t, exitFindings, code, errOut)
	assert.Empty(t, out)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &doc), "the reader got the whole report: %q", got)
	assert.Contains(t, got, `"rule": "upstream-no-keepalive"`)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe, "the FIFO is still a FIFO")

	code, _, errOut = runCLIBounded(t, "--format", "json", "--output", "fifo", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --output: fifo: no process reads this named pipe\n", errOut)
	code, _, errOut = runCLIBounded(t, "--write-baseline", "fifo", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --write-baseline: fifo: no process reads this named pipe\n", errOut)
}

// A path named for a report is followed where it points: a link to its
// target (the link stays a link), /dev/stdout to standard output. A link
// that is part of the repository and leads out of it is refused: a link
// committed as proxylint.sarif must not make CI overwrite a file of the
// machine.
func TestReportsFollowLinks(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	writeFile(t, dir, "reports/real.json", "the old report\n")
	require.NoError(t, os.Symlink("reports/real.json", filepath.Join(dir, "out.json")))
	require.NoError(t, os.Symlink("reports/new.json", filepath.Join(dir, "new.json")))
	require.NoError(t, os.Symlink("/dev/stdout", filepath.Join(dir, "stdout")))
	require.NoError(t, os.Symlink("/proc/self/fd/1", filepath.Join(dir, "fd1")))
	victim := writeFile(t, top, "victim.txt", "keep me\n")
	require.NoError(t, os.Symlink("../victim.txt", filepath.Join(dir, "proxylint.sarif")))
	t.Chdir(dir)

	isJSON := func(s string) bool {
		var doc map[string]any
		return json.Unmarshal([]byte(s), &doc) == nil && doc["version"] != nil
	}
	link := func(name, want string) {
		t.Helper()
		target, err := os.Readlink(filepath.Join(dir, name))
		require.NoError(t, err, "%s is still a link", name)
		assert.Equal(t, want, target)
	}

	for _, name := range []string{"out.json", "new.json"} {
		code, out, errOut := runCLIBounded(t, "--format", "json", "--output", name, "nginx.conf")
		assert.Equal(t, exitFindings, code, errOut)
		assert.Empty(t, out)
	}
	link("out.json", "reports/real.json")
	link("new.json", "reports/new.json")
	for _, p := range []string{"reports/real.json", "reports/new.json"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		assert.True(t, isJSON(string(b)), "%s holds the report", p)
	}

	for _, name := range []string{"stdout", "fd1", "/dev/stdout"} {
		code, out, errOut := runCLIBounded(t, "--format", "json", "--output", name, "nginx.conf")
		assert.Equal(t, exitFindings, code, errOut)
		assert.True(t, isJSON(out), "%s: the report is on standard output: %q", name, out)
	}
	link("stdout", "/dev/stdout")
	link("fd1", "/proc/self/fd/1")

	// One report at most on standard output, however it is named.
	code, out, errOut := runCLIBounded(t, "--format", "json=stdout", "--format", "text", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "proxylint: --format json and --format text both write to standard output")
	code, _, errOut = runCLIBounded(t, "--write-baseline", "stdout", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "proxylint: --write-baseline stdout and the text report both write to standard output")

	for _, args := range [][]string{
		{"--format", "sarif=proxylint.sarif", "nginx.conf"},
		{"--write-baseline", "proxylint.sarif", "nginx.conf"},
	} {
		code, out, errOut := runCLIBounded(t, args...)
		assert.Equal(t, exitError, code, "%v", args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "proxylint.sarif is a symbolic link inside the repository to "+victim+", outside it; refusing to write through it", "%v", args)
	}
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep me\n", string(b))

	// Outside a repository no link is committed: one of your own is
	// followed wherever it leads.
	plain := filepath.Join(top, "plain")
	writeFile(t, plain, "nginx.conf", literalProxyPass)
	require.NoError(t, os.Symlink("../reports.sarif", filepath.Join(plain, "out.sarif")))
	t.Chdir(plain)
	code, _, errOut = runCLIBounded(t, "--format", "sarif=out.sarif", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	b, err = os.ReadFile(filepath.Join(top, "reports.sarif"))
	require.NoError(t, err)
	assert.True(t, isJSON(string(b)))
}

// shopSite is a site whose two findings have fixes in the file itself.
const shopSite = `upstream api {
    server 10.0.0.1:8000;
    server 10.0.0.2:8000;
    keepalive 16;
}
server {
    listen 80;
    location /api/ {
        proxy_pass http://api;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_next_upstream error timeout non_idempotent;
    }
}
`

// fixedShopSite is shopSite with both fixes applied.
var fixedShopSite = strings.Replace(shopSite, "        proxy_next_upstream error timeout non_idempotent;\n",
	"        proxy_next_upstream error timeout;\n        proxy_next_upstream_tries 2;\n        proxy_next_upstream_timeout 120s;\n", 1)

// committedGitRepo makes a git repository with the files given, committed.
func committedGitRepo(t *testing.T, files map[string]string, links map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, dir, name, content)
	}
	for name, target := range links {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.Symlink(target, filepath.Join(dir, name)))
	}
	git(t, dir, nil, "init", "-q")
	git(t, dir, nil, "add", "-A")
	git(t, dir, nil, "-c", "user.name=proxylint", "-c", "user.email=proxylint@example.com", "commit", "-qm", "sites")
	return dir
}

// gitPorcelain is "git status --porcelain" in dir.
func gitPorcelain(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// diffAppliesWithGitAndPatch checks that diff applies from dir with git apply and with
// patch -p1, and leaves the files as want says.
func diffAppliesWithGitAndPatch(t *testing.T, dir, diff string, want map[string]string) {
	t.Helper()
	for _, tool := range [][]string{{"git", "apply", "-v"}, {"patch", "-p1", "--no-backup-if-mismatch"}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			t.Skipf("%s is not installed", tool[0])
		}
		cmd := exec.Command(tool[0], tool[1:]...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%v:\n%s\n%s", tool, out, diff)
		for name, content := range want {
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			assert.Equal(t, content, string(b), "%v: %s", tool, name)
		}
		git(t, dir, nil, "checkout", "-q", ".")
		assert.Empty(t, gitPorcelain(t, dir), "%v", tool)
	}
}

// Debian's layout: nginx.conf includes sites-enabled/*, whose files are
// links into sites-available/. --fix edits the file in sites-available
// (the link stays a link, git sees a modification, not a type change),
// every report names that file with the link as a note, and the diff
// applies with git apply and patch -p1 from the repository's root.
func TestFixEditsTheFileALinkLeadsTo(t *testing.T) {
	files := map[string]string{
		"nginx/nginx.conf":              "events {}\nhttp {\n    include sites-enabled/*;\n}\n",
		"nginx/sites-available/shop":    shopSite,
		"nginx/sites-available/staging": "server {\n    listen 8080;\n    return 204;\n}\n",
	}
	links := map[string]string{"nginx/sites-enabled/shop": "../sites-available/shop"}
	dir := committedGitRepo(t, files, links)
	t.Chdir(dir)
	const real, link = "nginx/sites-available/shop", "nginx/sites-enabled/shop"

	code, out, errOut := runCLIBounded(t, "--no-color", "nginx/")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, real+":12:9: error: proxy_next_upstream error timeout non_idempotent replays POST")
	assert.Contains(t, out, "    note: reached through the symbolic link "+link+"\n")
	assert.NotContains(t, out, link+":")

	code, out, _ = runCLIBounded(t, "--format", "github", "nginx/")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "::error file="+real+",line=12,col=9,")
	assert.Contains(t, out, "%0Areached through the symbolic link "+link)

	code, out, _ = runCLIBounded(t, "--format", "sarif", "nginx/")
	assert.Equal(t, exitFindings, code)
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				}
				RelatedLocations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
					Message          struct{ Text string }
				}
				Fixes []struct {
					ArtifactChanges []struct{ ArtifactLocation struct{ URI string } }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	found := 0
	for _, r := range doc.Runs[0].Results {
		if r.RuleID != "retry-timeout-write" && r.RuleID != "retry-tries-unbounded" {
			continue
		}
		found++
		assert.Equal(t, real, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		last := r.RelatedLocations[len(r.RelatedLocations)-1]
		assert.Equal(t, link, last.PhysicalLocation.ArtifactLocation.URI)
		assert.Equal(t, "reached through the symbolic link "+link+".", last.Message.Text)
		require.Len(t, r.Fixes, 1)
		assert.Equal(t, real, r.Fixes[0].ArtifactChanges[0].ArtifactLocation.URI)
	}
	assert.Equal(t, 2, found)

	code, diff, errOut := runCLIBounded(t, "--diff", "--unsafe-fixes", "nginx/")
	assert.Equal(t, exitFindings, code, errOut)
	assert.True(t, strings.HasPrefix(diff, "--- a/"+real+"\n+++ b/"+real+"\n@@ -9,6 +9,8 @@\n"), diff)
	diffAppliesWithGitAndPatch(t, dir, diff, map[string]string{real: fixedShopSite})

	for _, named := range []string{"nginx/", real, link} {
		code, _, errOut := runCLIBounded(t, "--no-color", "--fix", "--unsafe-fixes", named)
		assert.Equal(t, exitFindings, code, "%s: %s", named, errOut)
		assert.Contains(t, errOut, "proxylint: fixed 2 findings in 1 file\n", named)
		target, err := os.Readlink(filepath.Join(dir, link))
		require.NoError(t, err, "%s: the link stays a link", named)
		assert.Equal(t, "../sites-available/shop", target)
		b, err := os.ReadFile(filepath.Join(dir, real))
		require.NoError(t, err)
		assert.Equal(t, fixedShopSite, string(b), named)
		assert.Equal(t, " M "+real+"\n", gitPorcelain(t, dir), "%s: a modification, not a type change", named)
		git(t, dir, nil, "checkout", "-q", ".")
	}
}

// The layout made with ln instead of ln -s (a machine's /etc/nginx, not a
// repository: git keeps no hard links): sites-enabled/shop and
// sites-available/shop are one file with two names. It is linted once,
// through nginx.conf, under the name nginx.conf includes, and --fix
// writes into the file itself, so that both names still show the one
// fixed file; renamed over, the name written became a file of its own and
// the other kept the old text.
func TestFixKeepsHardLinks(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "nginx/nginx.conf", "events {}\nhttp {\n    include sites-enabled/*;\n}\n")
	writeFile(t, dir, "nginx/sites-available/shop", shopSite)
	const available, enabled = "nginx/sites-available/shop", "nginx/sites-enabled/shop"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "nginx/sites-enabled"), 0o755))
	require.NoError(t, os.Link(filepath.Join(dir, available), filepath.Join(dir, enabled)))
	t.Chdir(dir)

	code, out, errOut := runCLIBounded(t, "--no-color", "--format", "json", "nginx/")
	assert.Equal(t, exitFindings, code, errOut)
	var doc struct{ Findings []struct{ Rule, File string } }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	var where []string
	for _, f := range doc.Findings {
		where = append(where, f.Rule+" "+f.File)
	}
	assert.ElementsMatch(t, []string{"log-format-blind nginx/nginx.conf", "retry-timeout-write " + enabled, "retry-tries-unbounded " + enabled}, where)

	code, _, errOut = runCLIBounded(t, "--no-color", "--fix", "--unsafe-fixes", "nginx/")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, errOut, "proxylint: fixed 2 findings in 1 file\n")
	a, err := os.Stat(filepath.Join(dir, available))
	require.NoError(t, err)
	e, err := os.Stat(filepath.Join(dir, enabled))
	require.NoError(t, err)
	assert.True(t, os.SameFile(a, e), "the two names are still one file")
	b, err := os.ReadFile(filepath.Join(dir, available))
	require.NoError(t, err)
	assert.Equal(t, fixedShopSite, string(b))
}

// A file that two configurations include through two links is one file:
// its findings are reported once and the diff edits it once.
func TestTwoLinksToOneFileEditItOnce(t *testing.T) {
	main := "events {}\nhttp {\n    include sites/*;\n}\n"
	dir := committedGitRepo(t, map[string]string{
		"prod/nginx.conf":    main,
		"staging/nginx.conf": main,
		"shared/shop.conf":   shopSite,
	}, map[string]string{
		"prod/sites/shop":    "../../shared/shop.conf",
		"staging/sites/shop": "../../shared/shop.conf",
	})
	t.Chdir(dir)

	code, out, errOut := runCLIBounded(t, "--no-color", "prod", "staging")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Equal(t, 1, strings.Count(out, "shared/shop.conf:12:9: error: proxy_next_upstream"), out)
	assert.Contains(t, out, "note: reached through the symbolic link prod/sites/shop\n    note: reached through the symbolic link staging/sites/shop\n")

	code, diff, errOut := runCLIBounded(t, "--diff", "--unsafe-fixes", "prod", "staging")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Equal(t, 1, strings.Count(diff, "--- "), diff)
	diffAppliesWithGitAndPatch(t, dir, diff, map[string]string{"shared/shop.conf": fixedShopSite})

	code, _, errOut = runCLIBounded(t, "--fix", "--unsafe-fixes", "prod", "staging")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, errOut, "proxylint: fixed 2 findings in 1 file\n")
	b, err := os.ReadFile(filepath.Join(dir, "shared/shop.conf"))
	require.NoError(t, err)
	assert.Equal(t, fixedShopSite, string(b))
	assert.Equal(t, " M shared/shop.conf\n", gitPorcelain(t, dir))
	git(t, dir, nil, "checkout", "-q", ".")

	// So is a file two configurations name by two spellings of its path.
	writeFile(t, dir, "a.conf", "events {}\nhttp {\n    include "+filepath.Join(dir, "shared", "shop.conf")+";\n}\n")
	writeFile(t, dir, "b.conf", "events {}\nhttp {\n    include shared/shop.conf;\n}\n")
	git(t, dir, nil, "add", "a.conf", "b.conf")
	git(t, dir, nil, "-c", "user.name=proxylint", "-c", "user.email=proxylint@example.com", "commit", "-qm", "two spellings")
	code, diff, errOut = runCLIBounded(t, "--diff", "--unsafe-fixes", "a.conf", "b.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Equal(t, 1, strings.Count(diff, "--- "), diff)
	diffAppliesWithGitAndPatch(t, dir, diff, map[string]string{"shared/shop.conf": fixedShopSite})
}

// --fix writes only files it read from the disk, inside the named paths
// or the repository.
func TestFixWritesOnlyWhatItMay(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {\n    include sites/*;\n}\n")
	outside := writeFile(t, top, "elsewhere/shop.conf", shopSite)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sites"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "sites", "shop")))
	t.Chdir(dir)

	code, _, errOut := runCLIBounded(t, "--fix", "--unsafe-fixes", "--include-root", filepath.Dir(outside), "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --fix: "+outside+" is outside the linted paths and the repository; no file changed\n", errOut)
	b, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, shopSite, string(b))

	// Standard input is not the file it is named after.
	writeFile(t, dir, "shop.conf", "events {}\nhttp {\n"+shopSite+"}\n")
	var stdout, stderr bytes.Buffer
	finishesWithin(t, 60*time.Second, "--fix -", func() {
		code = runIO([]string{"--fix", "--unsafe-fixes", "--stdin-filename", "shop.conf", "-"}, strings.NewReader("events {}\nhttp {\n"+shopSite+"}\n"), &stdout, &stderr, noEnv)
	})
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --fix: shop.conf was not read from a file (standard input, or a file of an nginx -T dump); no file changed\n", stderr.String())
}

// File names in a diff: quoted as git quotes them, so that git apply and
// patch -p1 find the file; a name a diff cannot carry (a line break, an
// escape) is refused before anything is printed.
func TestDiffNames(t *testing.T) {
	names := []string{"my site.conf", `q"uote.conf`, `back\slash.conf`, "tab\there.conf", "café.conf", "\xff\xfe.conf", "\u202eevil.conf", "..x.conf"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = literalProxyPass
	}
	dir := committedGitRepo(t, files, nil)
	t.Chdir(dir)
	for _, n := range names {
		code, diff, errOut := runCLIBounded(t, "--diff", "--kind", "nginx", "--", n)
		assert.Equal(t, exitFindings, code, "%q: %s", n, errOut)
		diffAppliesWithGitAndPatch(t, dir, diff, map[string]string{n: fixedLiteralProxyPass})
	}
	code, diff, _ := runCLIBounded(t, "--diff", "--kind", "nginx", "--", "café.conf")
	assert.Equal(t, exitFindings, code)
	assert.True(t, strings.HasPrefix(diff, `--- "a/caf\303\251.conf"`+"\n"+`+++ "b/caf\303\251.conf"`+"\n"), diff)

	for _, n := range []string{"new\n+++ b/other.conf", "esc\x1b[2J.conf"} {
		writeFile(t, dir, n, literalProxyPass)
		code, diff, errOut := runCLIBounded(t, "--diff", "--kind", "nginx", "--", n)
		assert.Equal(t, exitError, code, "%q", n)
		assert.Empty(t, diff)
		assert.Contains(t, errOut, "which a diff cannot carry safely", "%q", n)
		assert.NotContains(t, errOut, "\x1b")
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%q", errOut)
	}

	// Names are relative to the repository's root wherever proxylint
	// runs, and a file outside it is refused.
	writeFile(t, dir, "sub/site.conf", literalProxyPass)
	writeFile(t, filepath.Dir(dir), "outside.conf", literalProxyPass)
	t.Chdir(filepath.Join(dir, "sub"))
	code, diff, errOut := runCLIBounded(t, "--diff", "site.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.True(t, strings.HasPrefix(diff, "--- a/sub/site.conf\n+++ b/sub/site.conf\n"), diff)
	code, diff, errOut = runCLIBounded(t, "--diff", "../../outside.conf")
	assert.Equal(t, exitError, code)
	assert.Empty(t, diff)
	assert.Contains(t, errOut, "proxylint: --diff: ../../outside.conf is outside "+dir+", the repository root the diff names files from")
}

// --diff compares in linear space: a 5,000-line file with one fix used to
// fill a 5,001 × 5,001 table (200 MB).
func TestDiffIsLinearInSpace(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("# line ")
		b.WriteString(strings.Repeat("x", i%40))
		b.WriteString("\n")
	}
	old := b.String()
	fixed := strings.Replace(old, "# line xxxxx\n", "# line xxxxx\n# inserted\n", 1)
	var before, after runtimeMem
	before.read()
	hunks := unifiedHunks([]byte(old), []byte(fixed))
	after.read()
	assert.Equal(t, "@@ -4,6 +4,7 @@\n # line xxx\n # line xxxx\n # line xxxxx\n+# inserted\n # line xxxxxx\n # line xxxxxxx\n # line xxxxxxxx\n", hunks)
	assert.Less(t, after.total-before.total, uint64(16*len(old)+1<<20), "bytes allocated for a %d-byte file", len(old))
}

// runtimeMem reads how many bytes the program has allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// Every format escapes a file name that holds a terminal escape; JSON
// keeps one that is not UTF-8 readable and exact.
func TestNamesEscapedInEveryFormat(t *testing.T) {
	dir := dirWithGitMarker(t)
	esc := "n\x1b]0;title\x07.conf"
	latin1 := "caf\xe9.conf"
	writeFile(t, dir, esc, literalProxyPass)
	writeFile(t, dir, latin1, literalProxyPass)
	t.Chdir(dir)
	for _, format := range []string{"text", "github", "sarif", "json"} {
		code, out, errOut := runCLIBounded(t, "--no-color", "--kind", "nginx", "--format", format, "--", esc, latin1)
		assert.Equal(t, exitFindings, code, "%s: %s", format, errOut)
		assert.NotContains(t, out, "\x1b", format)
		assert.NotContains(t, out, "\x07", format)
		assert.NotContains(t, out, "\xe9", format)
		assert.NotContains(t, out, "\ufffd", format)
	}
	_, out, _ := runCLIBounded(t, "--kind", "nginx", "--format", "json", "--", latin1)
	assert.Contains(t, out, `"file": "caf\\xe9.conf",`)
	assert.Contains(t, out, `"file_base64": "Y2Fm6S5jb25m",`)
	_, out, _ = runCLIBounded(t, "--kind", "nginx", "--format", "github", "--", esc)
	assert.Contains(t, out, `::warning file=n\x1b]0;title\x07.conf,line=6,col=13,`)
}

// A committed .proxylint.yaml cannot make proxylint read, and print, a
// file outside the repository: not as itself (a link out), nor as the
// baseline it names; and a key is echoed cut, never whole.
func TestCommittedConfigurationStaysInTheRepository(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	writeFile(t, top, "secrets.yaml", "ghp_SECRETTOKEN0123456789: 1\n")
	writeFile(t, top, "secrets.json", `{"ghp_SECRETTOKEN0123456789": 1}`)
	cfg := filepath.Join(dir, ".proxylint.yaml")
	require.NoError(t, os.Symlink("../secrets.yaml", cfg))
	t.Chdir(dir)

	code, out, errOut := runCLIBounded(t, "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out)
	assert.Equal(t, "proxylint: "+cfg+" is a symbolic link to "+filepath.Join(top, "secrets.yaml")+", outside the repository ("+dir+"); a configuration file found there is read only from inside it (name it with --config to read it anyway)\n", errOut)
	assert.NotContains(t, errOut, "ghp_")

	require.NoError(t, os.Remove(cfg))
	writeFile(t, dir, ".proxylint.yaml", "baseline: ../secrets.json\n")
	code, _, errOut = runCLIBounded(t, "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: .proxylint.yaml:1:11: baseline: ../secrets.json is outside the repository ("+dir+"); a configuration file names a baseline inside it (--baseline on the command line reads one anywhere)\n", errOut)

	// An explicit key: YAML's implicit ones stop at 1024 characters.
	long := strings.Repeat("k", 10000)
	writeFile(t, dir, ".proxylint.yaml", "? "+long+"\n: 1\n")
	code, _, errOut = runCLIBounded(t, "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, `proxylint: .proxylint.yaml:1:3: unknown key "`+strings.Repeat("k", 200)+`…"; the keys are`)
	assert.Less(t, len(errOut), 600)
}

// proxylint init writes the file named, never through a link: not the
// file itself, nor a directory that leads out of the repository.
func TestInitStaysInTheRepository(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(top, "etc"), 0o755))
	require.NoError(t, os.Symlink("../etc", filepath.Join(dir, "conf")))
	t.Chdir(dir)
	code, _, errOut := runCLIBounded(t, "init", "conf/.proxylint.yaml")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint init: conf/.proxylint.yaml leads out of the repository through a symbolic link (to "+filepath.Join(top, "etc", ".proxylint.yaml")+"); refusing to write there\n", errOut)
	_, err := os.Lstat(filepath.Join(top, "etc", ".proxylint.yaml"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	// --force replaces a file by rename: a hard link to it keeps what
	// it held.
	writeFile(t, top, "keep.txt", "kept\n")
	require.NoError(t, os.Link(filepath.Join(top, "keep.txt"), filepath.Join(dir, ".proxylint.yaml")))
	code, _, errOut = runCLIBounded(t, "init", "--force")
	assert.Equal(t, exitClean, code, errOut)
	b, err := os.ReadFile(filepath.Join(top, "keep.txt"))
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(b))
	b, err = os.ReadFile(filepath.Join(dir, ".proxylint.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "# proxylint configuration")
}

// proxylint init asks the nginx on PATH for its version, and does not wait
// for one that never answers.
func TestInitDoesNotWaitForAHungNginx(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "nginx"), []byte("#!/bin/sh\nexec sleep 60\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var code int
	var out string
	start := time.Now()
	finishesWithin(t, 30*time.Second, "proxylint init -", func() { code, out, _ = runCLIHere("init", "-") })
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "\n# target: nginx:1.28\n")
	assert.NotContains(t, out, "This machine runs", "no version, no hint")
	t.Logf("init returned after %s", time.Since(start).Round(time.Millisecond))
}

// A time nginx accepts but proxylint cannot count (over 292 years) is a
// positioned error, and a long one it can count is added up without
// overflowing into a negative duration.
func TestLongTimesInMessages(t *testing.T) {
	dir := dirWithGitMarker(t)
	site := func(timeout string) string {
		return "events {}\nhttp {\n" + strings.Replace(shopSite, "        proxy_next_upstream error timeout non_idempotent;\n",
			"        proxy_read_timeout "+timeout+";\n        proxy_next_upstream error timeout;\n", 1) + "}\n"
	}
	writeFile(t, dir, "huge.conf", site("9000000000000s"))
	writeFile(t, dir, "long.conf", site("6000000000s"))
	t.Chdir(dir)
	code, out, _ := runCLIBounded(t, "--no-color", "huge.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, out, `huge.conf:14:28: error: "proxy_read_timeout" directive value "9000000000000s" is longer than proxylint can count (about 292 years)`)
	code, out, _ = runCLIBounded(t, "--no-color", "long.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "a request whose servers time out can take up to 2 × (60s connect + 60s send + 6000000000s read) = more than 292 years")
	assert.NotContains(t, out, "= -")
	assert.NotContains(t, out, "or -")
}
