package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

// readerCase is a configuration fragment with what nginx's reader says
// about it: nothing, or an error at a position. TestReaderCases checks our
// reader against the expectation exactly; TestReaderCasesMatchNginx checks
// that real nginx agrees (same verdict, same line), so that the
// expectations cannot drift from nginx.
type readerCase struct {
	name string
	ctx  nginxtest.Context
	src  string
	// err is "" for valid input, else "line:col text" where text is a
	// substring of our message.
	err string
}

// loc wraps Lua code in a content_by_lua_block, the only Lua directive
// whose code nginx -t neither runs nor compiles.
func loc(lua string) string { return "content_by_lua_block {" + lua + "}\n" }

func readerCases() []readerCase {
	a := func(n int) string { return strings.Repeat("a", n) }
	cases := []readerCase{
		{"plain", nginxtest.InHTTP, "add_header X-A b;\n", ""},
		{"quoted name", nginxtest.InHTTP, "\"add_header\" 'X-A' \"b\";\n", ""},
		{"escaped quote in double quotes", nginxtest.InHTTP, "add_header X-A \"a\\\"b\";\n", ""},
		{"escaped backslash before the closing quote", nginxtest.InHTTP, "add_header X-A \"a\\\\\";\nadd_header X-B b;\n", ""},
		{"backtick is no quote", nginxtest.InHTTP, "add_header X-A `b;\n", ""},
		{"escaped space", nginxtest.InHTTP, "log_format main a\\ b;\n", ""},
		{"escaped braces and semicolon", nginxtest.InServer, "location /\\{\\;\\} {\n    return 204;\n}\n", ""},
		{"brace after variable", nginxtest.InHTTP, "add_header X-A ${host}x;\n", ""},
		{"quoted argument glued to a word", nginxtest.InHTTP, "add_header X-A \"a\"b;\n", "1:19 unexpected \"b\" after a quoted string"},
		{"quote then paren", nginxtest.InServer, "if ($host = \"a\") {\n    return 204;\n}\n", ""},
		{"double semicolon", nginxtest.InHTTP, "add_header X-A b;;\n", "1:18 unexpected \";\""},
		{"stray open brace", nginxtest.InServer, "listen 80;\n    { return 204; }\n", "2:5 unexpected \"{\""},
		{"stray close brace", nginxtest.InMainNoEvents, "events {}\n}\n", "2:1 unexpected \"}\": no block is open"},
		{"close brace ends a directive", nginxtest.InServer, "location / {\n    return 204\n}\n", "3:1 unexpected \"}\""},
		{"missing semicolon at the end", nginxtest.InHTTP, "add_header X-A b", "1:17 unexpected end of file"},
		{"unclosed quote", nginxtest.InHTTP, "add_header X-A \"b;\n", "2:1 unexpected end of file"},
		{"unclosed block", nginxtest.InMainNoEvents, "events {\n", "2:1 unexpected end of file, expecting \"}\" to close \"events\""},
		{"location without block", nginxtest.InServer, "location /x;\n", "1:12 directive \"location\" has no opening \"{\""},
		{"location without block across lines", nginxtest.InServer, "location\n  /x\n;\n", "3:1 directive \"location\" (line 1) has no opening"},
		{"listen with a block", nginxtest.InServer, "listen 80 { }\n", "1:11 directive \"listen\" is not terminated by \";\""},
		{"types refuses blocks", nginxtest.InHTTP, "types {\n    text/html html;\n    a { }\n}\n", "3:7 unexpected \"{\": \"types\" blocks hold values"},
		{"map refuses blocks", nginxtest.InHTTP, "map $host $x {\n    default 0;\n    a { }\n}\n", "3:7 unexpected \"{\""},
		{"geo refuses blocks", nginxtest.InHTTP, "geo $x {\n    ranges;\n    default 0;\n    127.0.0.1-127.0.0.2 1 { }\n}\n", "4:27 unexpected \"{\""},
		{"geo entries are data", nginxtest.InHTTP, "geo $x {\n    ranges;\n    default 0;\n    127.0.0.1-127.0.0.1 2;\n}\n", ""},
		{"charset_map entries are data", nginxtest.InHTTP, "charset_map koi8-r utf-8 {\n    80 E282AC;\n}\n", ""},
		{"comment between arguments", nginxtest.InHTTP, "gzip_types text/plain # the first\n    text/css;\n", ""},
		{"comment glued to a semicolon", nginxtest.InHTTP, "add_header X-A b;# c\n", ""},
		{"hash inside a word", nginxtest.InHTTP, "add_header X-A b#c;\n", ""},
		{"CRLF line ends", nginxtest.InHTTP, "add_header X-A b;\r\nadd_header X-B c\r\n", "3:1 unexpected end of file"},
		{"non-UTF-8 bytes", nginxtest.InHTTP, "add_header X-A \"\xe9\xff\"; # \xfe\n", ""},

		// Lua blocks, read by the Lua module's own lexer.
		{"lua length operator", nginxtest.InLocationLua, loc("\n    local t = { #x }\n"), ""},
		{"lua brace in strings", nginxtest.InLocationLua, loc("\n    ngx.say(\"{\", '}', \"\\\"{\")\n"), ""},
		{"lua brace in comments", nginxtest.InLocationLua, loc("\n    -- }\n    --[[ } ]]\n    --[==[ ]] } ]==]\n"), ""},
		{"lua brace in long strings", nginxtest.InLocationLua, loc("\n    local s = [[ } ]] .. [=[ ]] { ]=]\n"), ""},
		{"lua unclosed string is ordinary", nginxtest.InLocationLua, loc("\n    local s = \"{\n    }\n"), ""},
		{"lua quoted directive name", nginxtest.InLocationLua, "\"content_by_lua_block\" {\n    f({a=\"b\"})\n}\n", ""},
		{"set_by_lua_block with arguments", nginxtest.InServerLua, "set_by_lua_block $res { return #ngx.var.uri }\n", ""},
		{"lua unclosed block", nginxtest.InLocationLua, "content_by_lua_block {\n    local t = {\n", "2:15 unexpected end of file: the Lua code block opened at line 1"},
		{"lua unclosed long comment", nginxtest.InLocationLua, "content_by_lua_block {\n    --[==[ x ]=]\n}\n", "2:5 the Lua code block has no closing long bracket \"]==]\""},
		{"lua block needs a brace", nginxtest.InLocationLua, "content_by_lua_block;\n", "1:21 directive \"content_by_lua_block\" has no opening \"{\""},
		{"lua extra close brace", nginxtest.InLocationLua, "content_by_lua_block { }\n}\n", "2:1 unexpected \"}\""},
	}

	// nginx's read buffer holds 4096 bytes, and a word that does not fit is
	// an error. nginx moves a word to the start of the buffer when it needs
	// to read more, and keeps the word's start until the next word begins:
	// a word and the byte that ends it, or a quoted string, its closing
	// quote and the separator after it, must fit.
	for _, c := range []struct {
		word string
		ok   bool
	}{
		{a(4095) + ";", true},
		{a(4096) + ";", false},
		{a(4094) + " ;", true},
		{a(4095) + " ;", false},
		{`"` + a(4094) + `";`, true},
		{`"` + a(4095) + `";`, false},
		{`"` + a(4093) + `" ;`, true},
		{`"` + a(4094) + `" ;`, false},
		{`'` + a(4094) + `' ;`, false},
		{`"` + a(5000), false},
	} {
		name := fmt.Sprintf("%d-byte argument %.1s...%s", len(c.word), c.word, c.word[len(c.word)-2:])
		src := "add_header X-A " + c.word + "\nadd_header X-B b;\n"
		err := ""
		if !c.ok {
			err = "1:16 too long parameter"
			if c.word[0] != 'a' && !strings.Contains(c.word[1:], c.word[:1]) {
				err = "1:16 too long parameter, probably missing the closing " + c.word[:1] + " quote"
			}
		}
		cases = append(cases, readerCase{name, nginxtest.InHTTP, src, err})
		// Where the word starts in the file does not matter.
		cases = append(cases, readerCase{name + " after 1000 bytes", nginxtest.InHTTP, "# " + a(997) + "\n" + src, strings.Replace(err, "1:16", "2:16", 1)})
	}
	for _, n := range []int{4095, 4096} {
		err := ""
		if n == 4096 {
			err = "2:1 too long comment"
		}
		cases = append(cases, readerCase{fmt.Sprintf("%d-byte comment", n), nginxtest.InHTTP, "add_header X-A b;\n#" + a(n-1) + "\nadd_header X-B b;\n", err})
	}
	cases = append(cases,
		readerCase{"4096-byte comment at the end of the file", nginxtest.InHTTP, "add_header X-A b;\n#" + a(4095), ""},
		readerCase{"4097-byte comment at the end of the file", nginxtest.InHTTP, "add_header X-A b;\n#" + a(4096), "2:1 too long comment"})
	cases = append(cases, readerCase{"long quoted string over lines", nginxtest.InHTTP, "add_header X-A \"a\n" + strings.Repeat(a(99)+"\n", 41) + "\";\n", "1:16 too long parameter, probably missing the closing \" quote"})

	// The Lua module scans Lua code only as far as nginx's buffer reaches
	// and refills it when less than half of it is left: a long bracket
	// must close within the buffer, and a stretch of more than half a
	// buffer without a token cannot be scanned.
	// Which of them fail depends on where the buffer happens to start;
	// nginx confirms every one.
	for _, n := range []int{1500, 2000, 2040, 2100, 3000, 4000, 5000} {
		for _, pad := range []int{0, 1000, 3000} {
			padding := "# " + a(pad) + "\n"
			beyond := n == 5000 || n == 4000 && pad == 1000
			name := fmt.Sprintf("lua long comment of %d bytes after %d", n, pad)
			src := padding + "content_by_lua_block {\n    --[[" + a(n) + "]]\n}\n"
			err := ""
			if beyond {
				err = "3:5 the Lua code block has no closing long bracket \"]]\" for the one opened here within the 4096 bytes"
			}
			cases = append(cases, readerCase{name, nginxtest.InLocationLua, src, err})

			name = fmt.Sprintf("lua code without tokens, %d bytes after %d", n, pad)
			src = padding + "content_by_lua_block {\n    " + strings.Repeat("x = x + 1\n", n/10) + "}\n"
			err = ""
			if n == 5000 {
				err = "2:23 too long stretch of Lua code"
			}
			cases = append(cases, readerCase{name, nginxtest.InLocationLua, src, err})

			// A line comment ends where the buffer does: the rest of
			// the line is read as code.
			name = fmt.Sprintf("lua line comment of %d bytes after %d", n, pad)
			src = padding + "content_by_lua_block {\n    -- " + a(n) + " { \n}\n"
			err = ""
			if beyond {
				err = fmt.Sprintf("3:%d unexpected end of file: the Lua code block opened at line 2 is not closed", n+9)
			}
			cases = append(cases, readerCase{name, nginxtest.InLocationLua, src, err})
		}
	}
	return cases
}

func parentFor(ctx nginxtest.Context) string {
	switch strings.TrimSuffix(string(ctx), "-lua") {
	case "http":
		return "http"
	case "server":
		return "server"
	case "location":
		return "location"
	}
	return parentMain
}

func checkReaderCase(c readerCase) (got string) {
	if err := readCase(c); err != nil {
		return fmt.Sprintf("%d:%d %s", err.Pos.Line, err.Pos.Col, err.Msg)
	}
	return ""
}

func readCase(c readerCase) *Error {
	_, _, err := parseFile("test.conf", []byte(c.src), parentFor(c.ctx), 1, DefaultMaxDepth)
	return err
}

func TestReaderCases(t *testing.T) {
	t.Parallel()
	for _, c := range readerCases() {
		got := checkReaderCase(c)
		switch {
		case c.err == "" && got != "":
			t.Errorf("%s: got error %q, want none", c.name, got)
		case c.err != "" && got == "":
			t.Errorf("%s: got no error, want %q", c.name, c.err)
		case c.err != "":
			pos, text, _ := strings.Cut(c.err, " ")
			if !strings.HasPrefix(got, pos+" ") || !strings.Contains(got, text) {
				t.Errorf("%s: got error %q, want %q", c.name, got, c.err)
			}
		}
	}
}

func TestReaderCasesMatchNginx(t *testing.T) {
	t.Parallel()
	nginxtest.Require(t)
	dir := t.TempDir()
	for i, c := range readerCases() {
		path := filepath.Join(dir, fmt.Sprintf("case%03d.conf", i))
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := nginxtest.CheckFragment(t, c.ctx, path, nginxtest.WithTimeout(20e9))
			got := checkReaderCase(c)
			errs := res.Errors()
			switch {
			case res.OK && got != "":
				t.Errorf("nginx accepts, we say %q", got)
			case !res.OK && got == "":
				t.Errorf("nginx rejects (%v), we accept", errs)
			case !res.OK:
				if len(errs) == 0 || errs[0].File != path {
					t.Fatalf("nginx rejects, but not in the fragment: %s", res.Stderr)
				}
				if line := readCase(c).Pos.Line; errs[0].Line != int(line) {
					t.Errorf("nginx: %v; we: %s", errs[0], got)
				}
			}
		})
	}
}
