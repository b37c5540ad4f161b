package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text: 60s", "plain text: 60s"},
		{`regex ~ \.php$ and "quotes"`, `regex ~ \.php$ and "quotes"`},
		{"héllo → wörld", "héllo → wörld"},
		{"a\nb\r\nc\td", `a\nb\r\nc\td`},
		{"\x1b[2J\x1b]0;owned\x07", `\x1b[2J\x1b]0;owned\x07`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202euoy\u202c \u2066x\u2069 zw\u200b bom\ufeff", `bidi \u202euoy\u202c \u2066x\u2069 zw\u200b bom\ufeff`},
		{"sep\u2028par\u2029", `sep\u2028par\u2029`},
		{"tag \U000E0041", `tag \U000e0041`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"::add-mask::secret", `\x3a:add-mask::secret`},
		{"   ::error::x", `   \x3a:error::x`},
		{"a ::b", "a ::b"},
		{"x ##[error]forged", `x ##\x5berror]forged`},
		{"# [ok] #[ok]", "# [ok] #[ok]"},
	} {
		assert.Equal(t, c.want, Escape(c.in), "%q", c.in)
		assert.Equal(t, c.in != c.want, needsEscape(c.in), "needsEscape(%q)", c.in)
	}
}

// hostileInput has a finding in a file whose name, flagged line, message,
// related message and fix all carry control characters, terminal
// sequences and workflow commands.
func hostileInput() *Input {
	file := "/work/x\n::error file=a.conf,line=1::forged\x1b]0;title\x07.conf"
	src := "events {}\n\tproxy_pass \x1b[2J\u202ehttp://b;\x00 # ##[add-mask]k\n"
	return &Input{
		Findings: []rules.Finding{{
			Rule: "upstream-no-keepalive", Severity: model.Warning,
			Pos:     model.Pos{File: file, Line: 2, Col: 17},
			Message: "proxy_pass to \u202eb\n::add-mask::secret\r\n::error::forged has no upstream",
			Related: []rules.Related{
				{Pos: model.Pos{File: file, Line: 1, Col: 1}, Message: "in\n::warning::this"},
				{Message: "flag \x1b[31mred"},
			},
			Fix: rules.Advice("write\n##[error]this"),
		}},
		Files: []*model.File{{Path: file, Source: []byte(src)}},
		Dir:   "/work",
	}
}

// requireInert checks that no line of out can act on a terminal or the
// Actions runner: no control or format character but the line ends, no
// line that starts a workflow command, no legacy command anywhere.
func requireInert(t *testing.T, out string) {
	t.Helper()
	require.True(t, utf8.ValidString(out), "output is not UTF-8")
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, r := range line {
			ok := r >= 0x20 && r != 0x7f && (r < 0x80 || r > 0x9f) && !unicode.Is(unicode.Cf, r) && r != 0x2028 && r != 0x2029
			require.True(t, ok, "character %U in line %q", r, line)
		}
		require.False(t, strings.HasPrefix(strings.TrimLeft(line, " "), "::"), "line %q starts a workflow command", line)
		require.NotContains(t, line, "##[", "line %q holds a legacy workflow command", line)
	}
}

func TestTextEscapesInput(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Text(&b, hostileInput(), false))
	requireInert(t, b.String())
	// A file name that would start a command when it starts a line.
	in := hostileInput()
	in.Findings[0].Pos.File = "/work/::add-mask::x.conf"
	b.Reset()
	require.NoError(t, Text(&b, in, false))
	requireInert(t, b.String())
	assert.True(t, strings.HasPrefix(b.String(), `\x3a:add-mask::x.conf:2:17: warning:`), b.String())
	b.Reset()
	require.NoError(t, Text(&b, hostileInput(), false))
	const name = `x\n::error file=a.conf,line=1::forged\x1b]0;title\x07.conf`
	want := name + `:2:17: warning: proxy_pass to \u202eb\n::add-mask::secret\r\n::error::forged has no upstream [upstream-no-keepalive]
  2 |     proxy_pass \x1b[2J\u202ehttp://b;\x00 # ##\x5badd-mask]k
    |                       ^
    note: ` + name + `:1:1: in\n::warning::this
    note: flag \x1b[31mred
    fix: write\n##\x5berror]this
1 warning
`
	assert.Equal(t, want, b.String())
}

// The caret stays under the flagged character when escapes and tabs
// before it widen the line.
func TestTextCaretAfterEscapes(t *testing.T) {
	in := &Input{
		Findings: []rules.Finding{{Rule: "r", Severity: model.Note, Pos: model.Pos{File: "/w/a.conf", Line: 1, Col: 5}, Message: "m"}},
		Files:    []*model.File{{Path: "/w/a.conf", Source: []byte("\t\x01é\u202eX;\n")}},
		Dir:      "/w",
	}
	var b bytes.Buffer
	require.NoError(t, Text(&b, in, false))
	lines := strings.Split(b.String(), "\n")
	require.GreaterOrEqual(t, len(lines), 3, b.String())
	assert.Equal(t, `  1 |     \x01é\u202eX;`, lines[1])
	// The caret is under the X.
	assert.Equal(t, `    |                ^`, lines[2])
}

// The workflow-command format escapes what the files read put in it as
// the text report does (a terminal escape in a file name or a message
// must not reach the log as one), then on the runner's terms: "%", ":"
// and "," in properties, and the line breaks between a message's parts.
func TestGitHubHostileInput(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, GitHub(&b, hostileInput()))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 2, b.String())
	assert.Equal(t, `::warning file=x\n%3A%3Aerror file=a.conf%2Cline=1%3A%3Aforged\x1b]0;title\x07.conf,line=2,col=17,title=upstream-no-keepalive::`+
		`proxy_pass to \u202eb\n::add-mask::secret\r\n::error::forged has no upstream`+
		`%0Ax\n::error file=a.conf,line=1::forged\x1b]0;title\x07.conf:1:1: in\n::warning::this`+
		`%0Aflag \x1b[31mred`+
		`%0Afix: write\n##\x5berror]this`, lines[0])
	for _, c := range lines[0] {
		assert.False(t, c < 0x20 || c == 0x7f || c == 0x202e, "no control or format character: %q", lines[0])
	}
	assert.Equal(t, "1 warning", lines[1])
}

// needsEscape with its word-at-a-time start answers as a scan of every
// byte does.
func TestNeedsEscapeAsByteScan(t *testing.T) {
	scan := func(s string) bool {
		if strings.HasPrefix(strings.TrimLeft(s, " "), "::") || strings.Contains(s, "##[") {
			return true
		}
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r < utf8.RuneSelf && (r < 0x20 || r == 0x7f) || r == utf8.RuneError && size <= 1 || r >= utf8.RuneSelf && unsafeRune(r) {
				return true
			}
			i += size
		}
		return false
	}
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []string{"", "plain/path/nginx.conf", "0123456789abcdefghij", "tab\there", "del\x7fx", "\x1f1234567", "1234567\x1f", "12345678\x00", "é12345678", "12345678é", "1234567\u2028", "~~~~~~~~ ~~~~~~~~"}
	for range 3000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			switch rng.IntN(10) {
			case 0:
				b[i] = byte(rng.IntN(256))
			case 1:
				b[i] = "\x00\x1f\x20\x7e\x7f\x80\xff"[rng.IntN(7)]
			default:
				b[i] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := needsEscape(s), scan(s); got != want {
			t.Fatalf("needsEscape(%q) = %v, a byte scan says %v", s, got, want)
		}
	}
}
