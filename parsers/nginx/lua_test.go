package nginx

import (
	"strings"
	"testing"
	"time"
)

// TestLuaStringsScanInLinearTime is a regression test: a line of Lua code
// full of quotes that never close made each quote scan to the end of the
// line, so a few hundred kilobytes took seconds.
func TestLuaStringsScanInLinearTime(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		strings.Repeat(`"{\`, 100000),
		strings.Repeat(`'{\"`, 100000),
		strings.Repeat(`{"`, 100000) + "\n" + strings.Repeat("}", 100000),
	} {
		start := time.Now()
		_, err := parseString("content_by_lua_block {" + body + "\n}")
		if d := time.Since(start); d > timeLimit(watchdog) {
			t.Errorf("%.10q...: %v", body, d)
		}
		_ = err
	}
}

// TestLuaQuotedStrings checks which quotes open a Lua string for the
// brace counting: only those that close on their line.
func TestLuaQuotedStrings(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`x = "}" }`:                    ` x = "}" `,
		`x = '}' }`:                    ` x = '}' `,
		`x = "\"}" }`:                  ` x = "\"}" `,
		`x = "\\" }`:                   ` x = "\\" `,
		"x = \"a\n}":                   " x = \"a\n",
		"x = \"a\\\n}":                 " x = \"a\\\n",
		`x = "it's" .. '"' }`:          ` x = "it's" .. '"' `,
		`x = ]] .. ]==] }`:             ` x = ]] .. ]==] `,
		`x = [==[ ]] } ]==] }`:         ` x = [==[ ]] } ]==] `,
		"--[[ } ]] x --[=[ ]] } ]=] }": ` --[[ } ]] x --[=[ ]] } ]=] `,
		"-- } \n}":                     " -- } \n",
		"--[=x } \n}":                  " --[=x } \n",
		"t = {#x} }":                   " t = {#x} ",
	} {
		f, err := parseString("content_by_lua_block {" + " " + src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if got := *f.Directives[0].Lua(); got != want {
			t.Errorf("%q: body %q, want %q", src, got, want)
		}
	}
}
