package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixedLiteralProxyPass is literalProxyPass with the fix of its
// upstream-no-keepalive finding applied.
const fixedLiteralProxyPass = `events {}
http {
    upstream backend_127_0_0_1_8000 {
        server 127.0.0.1:8000;
        keepalive 16;
    }

    server {
        listen 80;
        location / {
            proxy_pass http://backend_127_0_0_1_8000;
            proxy_set_header Host 127.0.0.1:8000;
            proxy_redirect http://127.0.0.1:8000/ /;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`

func TestDiffPrintsTheFixes(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, errOut := runCLI(t, dir, "--diff", "nginx.conf")
	assert.Equal(t, `--- a/nginx.conf
+++ b/nginx.conf
@@ -1,9 +1,18 @@
 events {}
 http {
+    upstream backend_127_0_0_1_8000 {
+        server 127.0.0.1:8000;
+        keepalive 16;
+    }
+
     server {
         listen 80;
         location / {
-            proxy_pass http://127.0.0.1:8000;
+            proxy_pass http://backend_127_0_0_1_8000;
+            proxy_set_header Host 127.0.0.1:8000;
+            proxy_redirect http://127.0.0.1:8000/ /;
+            proxy_http_version 1.1;
+            proxy_set_header Connection "";
         }
     }
 }
`, out)
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code, "a diff with changes exits 1")
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, literalProxyPass, string(got), "--diff changes nothing")

	// Nothing to fix: no diff, exit 0.
	writeFile(t, dir, "fixed.conf", fixedLiteralProxyPass)
	code, out, errOut = runCLI(t, dir, "--diff", "fixed.conf")
	assert.Empty(t, out)
	assert.Empty(t, errOut)
	assert.Equal(t, exitClean, code)
}

func TestFixWritesTheFileAndReportsWhatRemains(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "nginx.conf", literalProxyPass)
	require.NoError(t, os.Chmod(p, 0o640))
	code, out, errOut := runCLI(t, dir, "--no-color", "--fix", "nginx.conf")
	assert.Equal(t, "proxylint: fixed 1 finding in 1 file\n", errOut)
	assert.Equal(t, exitFindings, code, "a run that changed files fails")
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fixedLiteralProxyPass, string(got))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the file keeps its mode")
	// The report is of the fixed file: the finding fixed is gone, the one
	// without a safe edit remains.
	assert.NotContains(t, out, "upstream-no-keepalive")
	assert.Contains(t, out, "nginx.conf:2:1: note: The default access log (format \"combined\") has no $request_time")
	assert.Contains(t, out, "[log-format-blind]\n")
	assert.Contains(t, out, "\n1 note\n")

	// The next run has nothing to fix: it passes (notes do not fail) and
	// leaves the file alone.
	code, out2, errOut := runCLI(t, dir, "--no-color", "--fix", "nginx.conf")
	assert.Equal(t, "proxylint: fixed 0 findings in 0 files\n", errOut)
	assert.Equal(t, exitClean, code)
	assert.Equal(t, out, out2)
	got, err = os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fixedLiteralProxyPass, string(got))
}

// A fix that edits a file outside the named paths (an include from a
// sibling directory) changes no file at all: the upstream block alone,
// without the proxy_pass pointed at it, would be half a fix.
func TestFixRefusesAFileOutsideTheNamedPaths(t *testing.T) {
	dir := t.TempDir()
	site := "events {}\nhttp {\n    server {\n        listen 80;\n        include ../shared/loc.conf;\n    }\n}\n"
	loc := "location / {\n    proxy_pass http://127.0.0.1:8000;\n}\n"
	sp := writeFile(t, dir, "site/nginx.conf", site)
	lp := writeFile(t, dir, "shared/loc.conf", loc)

	// The fix spans both files.
	_, diff, _ := runCLI(t, dir, "--diff", "site/nginx.conf")
	assert.Contains(t, diff, "--- a/shared/loc.conf\n")
	assert.Contains(t, diff, "--- a/site/nginx.conf\n")

	code, out, errOut := runCLI(t, dir, "--no-color", "--fix", "site/nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --fix: shared/loc.conf is outside the linted paths; no file changed\n", errOut)
	assert.Empty(t, out)
	for p, want := range map[string]string{sp: site, lp: loc} {
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, string(got), p)
	}

	// Naming both directories lets the fix through, whole.
	code, _, errOut = runCLI(t, dir, "--no-color", "--fix", "site", "shared")
	assert.Equal(t, exitFindings, code, errOut)
	got, err := os.ReadFile(lp)
	require.NoError(t, err)
	assert.Contains(t, string(got), "proxy_pass http://backend_127_0_0_1_8000;")
	got, err = os.ReadFile(sp)
	require.NoError(t, err)
	assert.Contains(t, string(got), "    upstream backend_127_0_0_1_8000 {\n")
}

// sarifFixes is the part of a SARIF log that carries fixes.
type sarifFixes struct {
	Runs []struct {
		Results []struct {
			RuleID string `json:"ruleId"`
			Fixes  []struct {
				Description struct {
					Text string `json:"text"`
				} `json:"description"`
				ArtifactChanges []struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Replacements []struct {
						DeletedRegion   map[string]int `json:"deletedRegion"`
						InsertedContent *struct {
							Text string `json:"text"`
						} `json:"insertedContent"`
					} `json:"replacements"`
				} `json:"artifactChanges"`
			} `json:"fixes"`
		} `json:"results"`
	} `json:"runs"`
}

func TestSARIFCarriesTheFix(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	_, out, errOut := runCLI(t, dir, args(only("upstream-no-keepalive"), "--format", "sarif", "nginx.conf")...)
	require.Empty(t, errOut)
	var doc sarifFixes
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Runs[0].Results, 1)
	fixes := doc.Runs[0].Results[0].Fixes
	require.Len(t, fixes, 1)
	assert.Equal(t, "Declare upstream backend_127_0_0_1_8000 for 127.0.0.1:8000 and point proxy_pass at it, keeping the request it sends.", fixes[0].Description.Text)
	require.Len(t, fixes[0].ArtifactChanges, 1)
	ch := fixes[0].ArtifactChanges[0]
	assert.Equal(t, "nginx.conf", ch.ArtifactLocation.URI)
	assert.Equal(t, "%SRCROOT%", ch.ArtifactLocation.URIBaseID)
	var got []string
	for _, r := range ch.Replacements {
		d := r.DeletedRegion
		require.Len(t, d, 4, "every bound is written out")
		got = append(got, fmt.Sprintf("%d:%d-%d:%d %q", d["startLine"], d["startColumn"], d["endLine"], d["endColumn"], r.InsertedContent.Text))
	}
	assert.Equal(t, []string{
		`3:1-3:1 "    upstream backend_127_0_0_1_8000 {\n        server 127.0.0.1:8000;\n        keepalive 16;\n    }\n\n"`,
		`6:24-6:45 "http://backend_127_0_0_1_8000"`,
		`7:1-7:1 "            proxy_set_header Host 127.0.0.1:8000;\n            proxy_redirect http://127.0.0.1:8000/ /;\n            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n"`,
	}, got)
	assert.Equal(t, fixedLiteralProxyPass, applySARIFChange(t, literalProxyPass, ch.Replacements))
}

// applySARIFChange applies replacements whose regions are lines and
// columns in code points, all of them in the text as read.
func applySARIFChange(t *testing.T, src string, reps []struct {
	DeletedRegion   map[string]int `json:"deletedRegion"`
	InsertedContent *struct {
		Text string `json:"text"`
	} `json:"insertedContent"`
}) string {
	t.Helper()
	offset := func(line, col int) int {
		at := 0
		for l := 1; l < line; l++ {
			i := strings.IndexByte(src[at:], '\n')
			require.GreaterOrEqual(t, i, 0, "line %d is past the end", line)
			at += i + 1
		}
		for c := 1; c < col; c++ {
			require.Less(t, at, len(src), "column %d is past the end of line %d", col, line)
			require.NotEqual(t, byte('\n'), src[at], "column %d is past the end of line %d", col, line)
			_, n := utf8.DecodeRuneInString(src[at:])
			at += n
		}
		return at
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, r := range reps {
		d := r.DeletedRegion
		e := edit{start: offset(d["startLine"], d["startColumn"]), end: offset(d["endLine"], d["endColumn"])}
		require.LessOrEqual(t, e.start, e.end)
		if r.InsertedContent != nil {
			e.text = r.InsertedContent.Text
		}
		edits = append(edits, e)
	}
	var b strings.Builder
	at := 0
	for _, e := range edits {
		require.GreaterOrEqual(t, e.start, at, "replacements are in order and do not overlap")
		b.WriteString(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(src[at:])
	return b.String()
}

// fixtureWithFixes is a fixture's SARIF and JSON, from a run that offers
// fixes.
type fixtureWithFixes struct {
	name        string
	sarif, json []byte
}

// fixturesWithFixes lints every fixture as the SARIF tests do and keeps
// those whose findings carry fixes.
func fixturesWithFixes(t *testing.T) []fixtureWithFixes {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	paths, err := filepath.Glob(filepath.Join(root, "fixtures", "*", "*"))
	require.NoError(t, err)
	sort.Strings(paths)
	var out []fixtureWithFixes
	for _, p := range paths {
		switch filepath.Ext(p) {
		case ".conf", ".yaml", ".yml", ".json":
		default:
			continue
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		a := append(fixtureArgs(t, p), filepath.ToSlash(rel))
		_, j, errOut := runCLI(t, root, append([]string{"--format", "json"}, a...)...)
		require.Empty(t, errOut, rel)
		if !strings.Contains(j, `"fix_edits"`) {
			continue
		}
		_, s, errOut := runCLI(t, root, append([]string{"--format", "sarif"}, a...)...)
		require.Empty(t, errOut, rel)
		out = append(out, fixtureWithFixes{rel, []byte(s), []byte(j)})
	}
	return out
}

// TestSARIFFixesOfEveryFixture applies each SARIF fix, by its lines and
// columns, to the files as read, and compares with the edits of the JSON
// report, which are byte offsets: the two must change the files alike.
func TestSARIFFixesOfEveryFixture(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cases := fixturesWithFixes(t)
	require.GreaterOrEqual(t, len(cases), 10, "fixtures with fixes")
	fixes := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sdoc sarifFixes
			require.NoError(t, json.Unmarshal(c.sarif, &sdoc))
			var jdoc struct {
				Findings []struct {
					Rule     string `json:"rule"`
					Fix      string `json:"fix"`
					FixEdits []struct {
						File       string `json:"file"`
						Start, End int
						Text       string `json:"text"`
					} `json:"fix_edits"`
				} `json:"findings"`
			}
			require.NoError(t, json.Unmarshal(c.json, &jdoc))
			results := sdoc.Runs[0].Results
			require.Len(t, results, len(jdoc.Findings))
			for i, f := range jdoc.Findings {
				r := results[i]
				require.Equal(t, f.Rule, r.RuleID)
				if len(f.FixEdits) == 0 {
					assert.Empty(t, r.Fixes, "%s: no edits, no fix", f.Rule)
					continue
				}
				require.Len(t, r.Fixes, 1, f.Rule)
				fixes++
				assert.NotEmpty(t, r.Fixes[0].Description.Text)
				// The JSON edits, by file, applied by byte offset.
				want := map[string]string{}
				byFile := map[string][]int{}
				for k, e := range f.FixEdits {
					byFile[e.File] = append(byFile[e.File], k)
				}
				for file, ks := range byFile {
					b, err := os.ReadFile(filepath.Join(root, file))
					require.NoError(t, err)
					sort.SliceStable(ks, func(a, b int) bool { return f.FixEdits[ks[a]].Start < f.FixEdits[ks[b]].Start })
					var sb strings.Builder
					at := 0
					for _, k := range ks {
						e := f.FixEdits[k]
						sb.Write(b[at:e.Start])
						sb.WriteString(e.Text)
						at = e.End
					}
					sb.Write(b[at:])
					want[file] = sb.String()
				}
				got := map[string]string{}
				for _, ch := range r.Fixes[0].ArtifactChanges {
					assert.Equal(t, "%SRCROOT%", ch.ArtifactLocation.URIBaseID)
					b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ch.ArtifactLocation.URI)))
					require.NoError(t, err)
					_, dup := got[ch.ArtifactLocation.URI]
					assert.False(t, dup, "one artifactChange per file")
					got[ch.ArtifactLocation.URI] = applySARIFChange(t, string(b), ch.Replacements)
				}
				assert.Equal(t, want, got, "%s: the SARIF fix and the JSON edits differ", f.Rule)
			}
		})
	}
	t.Logf("%d fixes in %d fixtures applied alike from SARIF and JSON", fixes, len(cases))
}
