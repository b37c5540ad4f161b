package nginx

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/tufanbarisyildirim/gonginx/config"
	gonginx "github.com/tufanbarisyildirim/gonginx/parser"
)

// gonginxDefects lists the corpus files that both gonginx and our reader
// accept but that gonginx reads wrongly, with the defect. The test fails
// when a listed file no longer shows a difference (or is no longer read
// by both), and on any difference in a file not listed.
//
// gonginx's known defects (see the corpus README, section 3):
//   - a backslash does not escape a space or a brace in a bare word:
//     "a\ b" becomes the two words "a\" and "b", and "/\{ {" loses the
//     "{" and the block;
//   - a stray "}" at the top level ends the file silently, and a stray
//     "{" inside a block is skipped;
//   - "#" in Lua code starts a comment, so "#t" (the length operator)
//     hides the rest of the line; braces inside Lua strings are counted;
//     a quoted *_by_lua_block name is not read as Lua;
//   - a backtick quotes like '"', and "\\" before a closing quote is taken
//     for an escaped quote;
//   - it reads runes, so a byte that is not UTF-8 becomes U+FFFD.
//
// Most of these make gonginx fail, which takes the file out of the
// comparison; the files below are those it reads without an error.
var gonginxDefects = map[string]string{
	"parser-edge-cases/09_backslash_escaped_brace.conf":                                                                                                   `"location /\{ {" loses the escaped brace and the block`,
	"parser-edge-cases/17_backslash_escaped_space.conf":                                                                                                   `"a\ b" becomes two words`,
	"nginx/nginxinc__crossplane/tests/configs/comments-between-args/nginx.conf":                                                                           `"\#arg\ 1" becomes two words`,
	"nginx/nginxinc__crossplane/tests/configs/non-unicode/nginx.conf":                                                                                     `the Latin-1 byte of "M\xf6lln" becomes U+FFFD`,
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/ubuntu_nginx_1_4_6/default_vhost/nginx/naxsi_core.rules": `"str:c:\\" ends with an escaped backslash; gonginx reads on to the next quote`,
}

// TestGonginxOracle compares our directive trees with those of gonginx, an
// independent nginx parser, on every corpus file both read without error:
// names, argument values (gonginx keeps quotes and escapes: the test
// removes them as nginx does), nesting and Lua code (ignoring white space)
// must be the same. Includes are not followed.
func TestGonginxOracle(t *testing.T) {
	t.Parallel()
	files := corpusFiles(t)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Name] = true
	}
	for name := range gonginxDefects {
		if !seen[name] {
			t.Errorf("stale gonginx defect: %s is not in the corpus", name)
		}
	}
	var compared, differ, gonginxFails, bothFail, weFail int
	for _, f := range files {
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		ours, _, perr := parseFile(f.Path, src, parentUnknown, 0, DefaultMaxDepth)
		theirs, gerr := parseWithGonginx(f.Path)
		defect, listed := gonginxDefects[f.Name]
		switch {
		case gerr != nil && perr != nil:
			bothFail++
		case gerr != nil:
			gonginxFails++
		case perr != nil:
			weFail++
		}
		if gerr != nil || perr != nil {
			if listed {
				t.Errorf("%s: listed as a gonginx defect (%s) but not read by both (gonginx: %v; we: %v)", f.Name, defect, gerr, perr)
			}
			continue
		}
		compared++
		got, want := renderOurs(ours.Directives, 0), renderGonginx(theirs.GetDirectives(), 0)
		if got == want {
			if listed {
				t.Errorf("%s: listed as a gonginx defect (%s), but the trees agree", f.Name, defect)
			}
			continue
		}
		differ++
		if !listed {
			t.Errorf("%s: the trees differ:\n%s", f.Name, firstDifference(got, want))
		}
	}
	t.Logf("%d corpus files: %d read by both and compared, %d of them differ (known gonginx defects); both fail on %d; only gonginx fails on %d; only we fail on %d",
		len(files), compared, differ, bothFail, gonginxFails, weFail)
}

// parseWithGonginx parses a file leniently (any directive name, comments
// skipped, includes not followed), recovering from panics and giving up
// after a while.
func parseWithGonginx(path string) (*config.Config, error) {
	type result struct {
		c   *config.Config
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("gonginx panicked: %v", r)}
			}
		}()
		p, err := gonginx.NewParser(path, gonginx.WithSkipValidDirectivesErr(), gonginx.WithSkipComments())
		if err != nil {
			done <- result{err: err}
			return
		}
		c, err := p.Parse()
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-time.After(20 * time.Second):
		return nil, fmt.Errorf("gonginx did not finish within 20s")
	}
}

// The renderings below write a tree one directive a line, in the shape
// gonginx's AST gives it:
//   - in an http block, block "server" directives come after the others;
//     in an upstream block, "server" directives come after the others;
//   - http and block servers have no arguments, upstream only its name;
//   - a "server" without a block has its address, then its key=value
//     parameters sorted by key (a repeated key keeps its last value),
//     then its flags.

func renderOurs(dirs []*Directive, depth int) string {
	var b strings.Builder
	for _, d := range dirs {
		args := d.ArgValues()
		children := d.Block
		switch {
		case d.Name == "http" && d.Block != nil:
			args = nil
			children = serversLast(children, func(c *Directive) bool { return c.Name == "server" && c.Block != nil })
		case d.Name == "upstream" && d.Block != nil:
			args = args[:min(1, len(args))]
			children = serversLast(children, func(c *Directive) bool { return c.Name == "server" })
		case d.Name == "server" && d.Block != nil:
			args = nil
		case d.Name == "server":
			args = upstreamServerArgs(args)
		}
		line(&b, depth, d.Name, args)
		switch {
		case d.Lua() != nil:
			fmt.Fprintf(&b, " lua %q\n", noSpace(*d.Lua()))
		case d.Block != nil:
			b.WriteString(" {\n")
			b.WriteString(renderOurs(children, depth+1))
			b.WriteString(strings.Repeat("  ", depth) + "}\n")
		default:
			b.WriteString(";\n")
		}
	}
	return b.String()
}

func serversLast(dirs []*Directive, isServer func(*Directive) bool) []*Directive {
	out := slices.Clone(dirs)
	slices.SortStableFunc(out, func(a, b *Directive) int {
		return cmp.Compare(boolInt(isServer(a)), boolInt(isServer(b)))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func upstreamServerArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := []string{args[0]}
	kv := map[string]string{}
	var flags []string
	for _, a := range args[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			kv[k] = v
		} else {
			flags = append(flags, a)
		}
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+kv[k])
	}
	return append(out, flags...)
}

func renderGonginx(dirs []config.IDirective, depth int) string {
	var b strings.Builder
	for _, d := range dirs {
		name := gonginxValue(d.GetName())
		var args []string
		for _, p := range d.GetParameters() {
			args = append(args, gonginxValue(p.GetValue()))
		}
		line(&b, depth, name, args)
		block := d.GetBlock()
		switch {
		case block != nil && strings.HasSuffix(name, "_by_lua_block"):
			fmt.Fprintf(&b, " lua %q\n", noSpace(block.GetCodeBlock()))
		case block != nil:
			b.WriteString(" {\n")
			b.WriteString(renderGonginx(block.GetDirectives(), depth+1))
			b.WriteString(strings.Repeat("  ", depth) + "}\n")
		default:
			b.WriteString(";\n")
		}
	}
	return b.String()
}

func line(b *strings.Builder, depth int, name string, args []string) {
	b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(b, "%q", name)
	for _, a := range args {
		fmt.Fprintf(b, " %q", a)
	}
}

// gonginxValue turns a word as gonginx keeps it (quotes and escapes
// included) into its value as nginx reads it.
func gonginxValue(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return unescape([]byte(s))
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// firstDifference shows the first differing line of two renderings with
// a little context.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d of the rendering:\n     ours: %s\n  gonginx: %s", i+1, gl, wl)
		}
	}
	return "(no line differs)"
}
