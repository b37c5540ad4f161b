package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A committed .proxylint.yaml must not widen what proxylint reads beyond
// the repository: includes could then print the bytes of any file.
func TestConfigPathsConfinedToRepository(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "deploy", "shared"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(top, "secret.env"), []byte("TOKEN=1\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "deploy", "nginx.conf"), []byte("events {}\n"), 0o644))
	require.NoError(t, os.Symlink(top, filepath.Join(repo, "deploy", "up")))
	t.Chdir(filepath.Join(repo, "deploy"))
	root, err := Root()
	require.NoError(t, err)
	require.Equal(t, repo, root)

	for src, want := range map[string]string{
		"include-roots: [\"/\"]\n":           `.proxylint.yaml:1:17: include-roots: / is outside the repository (` + repo + `); only --include-root on the command line widens the tree beyond it`,
		"include-roots: [../..]\n":           `.proxylint.yaml:1:17: include-roots: ../.. is outside the repository (` + repo + `); only --include-root on the command line widens the tree beyond it`,
		"include-roots: [up]\n":              `.proxylint.yaml:1:17: include-roots: up is outside the repository (` + repo + `); only --include-root on the command line widens the tree beyond it`,
		"entry-points: [../../secret.env]\n": `.proxylint.yaml:1:16: entry-points: ../../secret.env is outside the repository (` + repo + `); a configuration file names files inside it`,
		"entry-points: [up/secret.env]\n":    `.proxylint.yaml:1:16: entry-points: up/secret.env is outside the repository (` + repo + `); a configuration file names files inside it`,
	} {
		_, err := Parse(".proxylint.yaml", filepath.Join(repo, "deploy"), []byte(src))
		assert.EqualError(t, err, want, "%s", src)
	}
	c, err := Parse(".proxylint.yaml", filepath.Join(repo, "deploy"), []byte("include-roots: [shared, ..]\nentry-points: [nginx.conf]\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(repo, "deploy", "shared"), repo}, c.IncludeRoots)

	// Outside any repository, the working directory is the limit.
	plain := filepath.Join(top, "plain")
	require.NoError(t, os.MkdirAll(plain, 0o755))
	t.Chdir(plain)
	_, err = Parse(".proxylint.yaml", plain, []byte("entry-points: [../secret.env]\n"))
	assert.EqualError(t, err, `.proxylint.yaml:1:16: entry-points: ../secret.env is outside the repository (`+plain+`); a configuration file names files inside it`)
}

// Outside a repository, a .proxylint.yaml in a directory above the working
// directory (one planted in /tmp) does not apply.
func TestFindOutsideRepositoryStopsAtDir(t *testing.T) {
	top := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(top, ".proxylint.yaml"), []byte("fail-on: error\n"), 0o644))
	wd := filepath.Join(top, "work")
	require.NoError(t, os.MkdirAll(wd, 0o755))
	p, err := Find(wd)
	require.NoError(t, err)
	assert.Empty(t, p)
	p, err = Find(top)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(top, ".proxylint.yaml"), p)
}

// A configuration file that is a FIFO or a link to a device is refused, not
// read for ever.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, ".proxylint.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for path, want := range map[string]string{
		fifo: fifo + ": not a regular file (named pipe)",
		zero: zero + ": not a regular file (character device)",
	} {
		done := make(chan error, 1)
		go func() { _, err := Load(path); done <- err }()
		select {
		case err := <-done:
			assert.EqualError(t, err, want)
		case <-time.After(20 * time.Second):
			t.Fatalf("Load(%s) blocked", path)
		}
	}
}
