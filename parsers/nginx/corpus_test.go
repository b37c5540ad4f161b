package nginx

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDir is the shared corpus of real-world configurations, next to the
// repository: ../shared/corpus from the repository root.
const corpusDir = "../../../shared/corpus"

// corpusFile is one nginx configuration of the corpus.
type corpusFile struct {
	// Name is the path below the corpus directory, as the tests' tables
	// name it: "nginx/<repo>/<path>" or "parser-edge-cases/<file>".
	Name string
	Path string // absolute
	// Context is where the file's contents belong: "main", "http",
	// "server", "location" or "upstream".
	Context string
}

// corpusContexts overrides the context InferContext finds for a file's
// top level where a file's own directives do not tell.
var corpusContexts = map[string]string{
	// Include chains of complete configurations: a.conf includes b.conf,
	// whose worker_processes belongs in the main context.
	"parser-edge-cases/inc/a.conf": "main",
	"parser-edge-cases/inc/b.conf": "main",
	// Snippets of rewrite directives that their projects include in
	// server blocks.
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/conf.d/include/block-exploits.conf": "server",
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/conf.d/include/force-ssl.conf":      "server",
	"nginx/yandex__gixy/tests/plugins/simply/http_splitting/rewrite_uri.conf":                                 "server",
	"nginx/yandex__gixy/tests/plugins/simply/origins/metrika.conf":                                            "location",
}

// requireCorpus returns the corpus directory, or skips the test when the
// corpus is not next to the repository.
func requireCorpus(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(corpusDir)
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "nginx"))
	}
	if err != nil {
		t.Skipf("corpus not available (%s next to the repository): %v", corpusDir, err)
	}
	return dir
}

// corpusFiles lists every nginx file of the corpus with its context: the
// one ctx.tsv gives for the parser edge cases, else what the file's top
// level implies.
func corpusFiles(t testing.TB) []corpusFile {
	t.Helper()
	dir := requireCorpus(t)
	edge := edgeCaseContexts(t, filepath.Join(dir, "parser-edge-cases", "ctx.tsv"))
	var out []corpusFile
	for _, sub := range []string{"nginx", "parser-edge-cases"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if rel == "parser-edge-cases/ctx.tsv" {
				return nil
			}
			f := corpusFile{Name: rel, Path: p}
			switch {
			case edge[rel] != "":
				f.Context = edge[rel]
			case corpusContexts[rel] != "":
				f.Context = corpusContexts[rel]
			default:
				cfg := Load(p, Options{})
				if cfg.Main != nil {
					f.Context = InferContext(cfg.Main.Directives)
				} else {
					f.Context = "http"
				}
			}
			out = append(out, f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// edgeCaseContexts reads ctx.tsv: file name, TAB, nginxtest context. The
// Lua variants and main-noevents map to the loader's contexts.
func edgeCaseContexts(t testing.TB, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading the edge cases' contexts: %v", err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, ctx, ok := strings.Cut(strings.TrimSpace(sc.Text()), "\t")
		if !ok {
			continue
		}
		ctx = strings.TrimSuffix(ctx, "-lua")
		if ctx == "main-noevents" {
			ctx = "main"
		}
		out["parser-edge-cases/"+name] = ctx
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
