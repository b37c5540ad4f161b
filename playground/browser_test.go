package playground

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write the browser test's last screenshot to docs/playground.png")

// chromium is Debian's Chromium (or another build of Chromium or Chrome
// on the PATH), or the test is skipped: unless PROXYLINT_REQUIRE_CHROMIUM=1
// (set by .ci/run, which installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("PROXYLINT_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is not installed (PROXYLINT_REQUIRE_CHROMIUM=1)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// pageFinding is a finding as the page shows it.
type pageFinding struct {
	Rule    string   `json:"rule"`
	Pos     string   `json:"pos"`
	Related []string `json:"related"`
	Fix     bool     `json:"fix"`
	// Applicability is the fix button's: safe or unsafe.
	Applicability string `json:"applicability"`
}

func (f pageFinding) String() string {
	s := f.Rule + " " + f.Pos
	for _, r := range f.Related {
		s += " [" + r + "]"
	}
	if f.Fix {
		s += " (" + fixLabel(f.Applicability) + ")"
	}
	return s
}

// fixLabel is how a finding's brief names its fix: "fix" for a safe one,
// "unsafe fix" for one --fix applies only with --unsafe-fixes.
func fixLabel(applicability string) string {
	if applicability == "unsafe" {
		return "unsafe fix"
	}
	return "fix"
}

// readFindings reads the findings off the page.
const readFindings = `[...document.querySelectorAll("#findings > li.finding")].map((li) => ({
	rule: li.dataset.rule,
	pos: li.querySelector(".head a.pos").textContent,
	related: [...li.querySelectorAll(".related > li")].map((r) => r.textContent),
	fix: li.querySelector("button.apply") !== null,
	applicability: li.querySelector("button.apply")?.dataset.applicability ?? "",
}))`

// The playground in a real browser: the page loads the lint core, lints
// the example it opens with (nginx.conf and the site it includes) and
// shows the findings with their positions in both files; a typed
// configuration is linted as it is typed, and for the target chosen; a
// fix button makes the fix's edits in both files; nothing is fetched but
// the page's own files. The screenshot of the page as the test leaves it
// is docs/playground.png (-update-screenshot writes it there).
func TestPlaygroundInChromium(t *testing.T) {
	exe := chromium(t)
	dir := builtPage(t)
	var servedMu sync.Mutex
	served := map[string]bool{}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		servedMu.Lock()
		served[r.URL.Path] = true
		servedMu.Unlock()
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()

	home := t.TempDir()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium keeps crash reports, caches and certificates under the
		// home directory and XDG's: the test's temporary directory.
		chromedp.Env("HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache")),
		chromedp.WindowSize(1280, 900),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 4*time.Minute)
	defer cancelTime()

	var mu sync.Mutex
	var requested, exceptions []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requested = append(requested, e.Request.URL)
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			exceptions = append(exceptions, msg)
		}
	}))

	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...), what)
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		require.NoError(t, err, what)
		return v
	}
	findings := func() []string {
		t.Helper()
		fs, err := chromedp.Run(ctx, chromedp.Evaluate[[]pageFinding](readFindings))
		require.NoError(t, err, "read the findings")
		out := []string{}
		for _, f := range fs {
			out = append(out, f.String())
		}
		return out
	}
	lints := 0
	// linted waits for the page to answer the next lint and be up to date.
	linted := func(what string) {
		t.Helper()
		lints++
		began := time.Now()
		do(what, chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`body[data-lints="%d"][data-state="ready"]`, lints))))
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.lintMs`))
		require.NoError(t, err)
		t.Logf("%s: linted in %s ms, waited %s", what, ms, time.Since(began).Round(time.Millisecond))
	}
	script := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Evaluate[any](expr)(ctx, tg)
			return err
		})
	}
	choose := func(sel, value string) chromedp.Action[chromedp.Void] {
		return script(fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("change")); })()`, sel, value))
	}
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }

	// The page opens with the nginx example, linted.
	opened := time.Now()
	do("open the page", chromedp.Navigate(srv.URL+"/"))
	linted("the first lint")
	t.Logf("the page showed its first findings %s after it was opened", time.Since(opened).Round(time.Millisecond))
	assert.Equal(t, "1 error, 3 warnings, 1 note · linted for nginx 1.18 or newer", get("read the status", chromedp.Text(css("#status"))))
	assert.Equal(t, []string{
		"log-format-blind nginx.conf:5:5 [nginx.conf:4:5 log_format main] (unsafe fix)",
		"retry-timeout-write nginx.conf:9:5 [conf.d/shop.conf:7:5 in effect for location /api/] (unsafe fix)",
		`retry-tries-unbounded nginx.conf:9:5 [conf.d/shop.conf:12:9 proxied to by location /orders/] [nginx.conf:12:5 the servers of upstream "shop"] (unsafe fix)`,
		`retry-tries-unbounded nginx.conf:9:5 [conf.d/shop.conf:8:9 proxied to by location /api/] [nginx.conf:12:5 the servers of upstream "shop"] (unsafe fix)`,
		"upstream-no-keepalive nginx.conf:12:5 [conf.d/shop.conf:8:9 used by proxy_pass] (fix)",
	}, findings())

	// A configuration typed into an empty file is linted as it is typed.
	do("empty the files", choose("#example", "empty"))
	linted("the empty file")
	assert.Equal(t, "No findings · linted for nginx 1.18 or newer", get("read the status", chromedp.Text(css("#status"))))
	typed := "events {}\nhttp {\nupstream api { server 10.0.0.1:8000; server 10.0.0.2:8000; }\nserver {\nlisten 80;\n" +
		"location /orders/ { proxy_pass http://api; proxy_next_upstream error timeout non_idempotent; }\n}\n}\n"
	do("type a configuration", chromedp.Click(css("#text")), chromedp.SendKeys(css("#text"), typed))
	do("wait for its lint", chromedp.WaitReady(css(`body[data-state="ready"]`)))
	// Typing may have paused long enough for lints in between.
	n, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.lints`))
	require.NoError(t, err)
	_, err = fmt.Sscan(n, &lints)
	require.NoError(t, err)
	require.Equal(t, typed, get("read the text", chromedp.Value(css("#text"))))
	want := []string{
		"log-format-blind nginx.conf:2:1",
		"upstream-no-keepalive nginx.conf:3:1 [nginx.conf:6:21 used by proxy_pass] (fix)",
		"retry-timeout-write nginx.conf:6:44 [nginx.conf:6:1 in effect for location /orders/]",
		`retry-tries-unbounded nginx.conf:6:44 [nginx.conf:6:21 proxied to by location /orders/] [nginx.conf:3:1 the servers of upstream "api"] (unsafe fix)`,
	}
	assert.Equal(t, want, findings())
	// The page's lint core answers as the package does.
	var same []string
	for _, f := range Lint(Request{Files: []File{{Name: "nginx.conf", Text: typed}}}).Findings {
		s := fmt.Sprintf("%s %s:%d:%d", f.Rule, f.File, f.Line, f.Column)
		for _, r := range f.Related {
			s += fmt.Sprintf(" [%s:%d:%d %s]", r.File, r.Line, r.Column, r.Message)
		}
		if len(f.Edits) > 0 {
			s += " (" + fixLabel(f.Applicability) + ")"
		}
		same = append(same, s)
	}
	assert.Equal(t, same, findings())

	// nginx 1.29.7 pools an upstream block by itself.
	do("choose a target", choose("#target", "nginx:1.29.7"))
	linted("the target")
	assert.Equal(t, []string{want[0], want[2], want[3]}, findings())
	do("back to the defaults", choose("#target", ""))
	linted("the defaults")

	// Envoy in front of nginx: the findings on the request's path point
	// into the other file.
	do("open the Envoy example", choose("#example", "envoy-nginx"))
	linted("the Envoy example")
	assert.Equal(t, []string{
		`timeout-equal-adjacent envoy.yaml:26:19 [nginx.conf:11:9 the inner layer's proxy_read_timeout 60s (default)] [envoy.yaml:25:19 proxied to nginx:8080 here]`,
		`retry-amplification envoy.yaml:28:21 [nginx.conf:11:9 location / (nginx.conf) retries too (2 attempts)]`,
		`keepalive-idle-race envoy.yaml:35:5 [nginx.conf:9:5 closes idle connections after 75s] [envoy.yaml:25:19 used by route /]`,
		`log-format-blind nginx.conf:3:1`,
	}, findings())
	// A position in the other file opens it at that line.
	do("follow a related position", chromedp.Click(css(`#findings li[data-rule="retry-amplification"] .related a.pos`)))
	active := get("read the open tab", chromedp.Text(css(`#tabs button[aria-selected="true"]`)))
	assert.True(t, strings.HasPrefix(active, "nginx.conf"), active)
	selected := get("read the selection", chromedp.Evaluate[string](`(() => { const t = document.querySelector("#text"); return t.value.slice(t.selectionStart, t.selectionEnd); })()`))
	assert.Equal(t, "        location / {", selected)

	// Back to the nginx example: the fix for the unpooled upstream adds
	// keepalive to nginx.conf and the HTTP/1.1 headers to the site.
	do("open the nginx example", choose("#example", "nginx-include"))
	linted("the nginx example")
	do("apply the fix", chromedp.Click(css(`#findings li[data-rule="upstream-no-keepalive"] button.apply`)))
	linted("the fixed configuration")
	text := get("read nginx.conf", chromedp.Value(css("#text")))
	lines := strings.Split(text, "\n")
	require.Greater(t, len(lines), 16, text)
	assert.Equal(t, []string{"        server 10.0.0.12:8080;", "        keepalive 16;", "    }"}, lines[13:16])
	assert.Equal(t, []string{
		"log-format-blind nginx.conf:5:5 [nginx.conf:4:5 log_format main] (unsafe fix)",
		"retry-timeout-write nginx.conf:9:5 [conf.d/shop.conf:7:5 in effect for location /api/] (unsafe fix)",
		`retry-tries-unbounded nginx.conf:9:5 [conf.d/shop.conf:14:9 proxied to by location /orders/] [nginx.conf:12:5 the servers of upstream "shop"] (unsafe fix)`,
		`retry-tries-unbounded nginx.conf:9:5 [conf.d/shop.conf:8:9 proxied to by location /api/] [nginx.conf:12:5 the servers of upstream "shop"] (unsafe fix)`,
	}, findings(), "the upstream is pooled; the site's lines moved")
	do("open the site", chromedp.Click(css(`#tabs button[data-name="conf.d/shop.conf"]`)))
	site := get("read the site", chromedp.Value(css("#text")))
	assert.Contains(t, site, "    location /api/ {\n        proxy_pass http://shop;\n        proxy_http_version 1.1;\n        proxy_set_header Connection \"\";\n    }\n")
	assert.Contains(t, site, "    location /orders/ {\n        proxy_pass http://shop;\n        proxy_http_version 1.1;\n        proxy_set_header Connection \"\";\n        proxy_read_timeout 30s;\n    }\n")
	do("open nginx.conf", chromedp.Click(css(`#tabs button[data-name="nginx.conf"]`)))

	// The rules' documentation.
	do("show a rule's doc", chromedp.Click(css(`#findings li[data-rule="retry-timeout-write"] a.rule`)))
	assert.Equal(t, "retry-timeout-write: a request that may write is retried after it may have run", get("read the doc", chromedp.Text(css("#doc h1"))))
	do("scroll back to the findings", script(`document.querySelector("#results").scrollTo(0, 0)`))

	var png []byte
	png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err, "take a screenshot")
	shot := filepath.Join(t.TempDir(), "playground.png")
	require.NoError(t, os.WriteFile(shot, png, 0o644))
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if *updateScreenshot {
		require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "playground.png"), png, 0o644))
	}

	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, exceptions, "no script failed")
	require.NotEmpty(t, requested)
	for _, u := range requested {
		assert.True(t, strings.HasPrefix(u, srv.URL+"/"), "the page fetched %s", u)
	}
	// The worker's requests are not the page's: the server saw them.
	servedMu.Lock()
	defer servedMu.Unlock()
	for _, p := range []string{"/", "/playground.js", "/worker.js", "/wasm_exec.js", "/main.wasm"} {
		assert.True(t, served[p], "%s was not fetched from the page's server", p)
	}
}
