// Command gendirectives writes directives_gen.go: every directive declared
// in the ngx_command_t tables of nginx and of third-party modules, with the
// contexts it is allowed in, where it takes a block, how many arguments it
// takes, how nginx reads its value (the ngx_conf_set_*_slot handler and,
// for enums and bit masks, the words), and for nginx's own directives the
// first release that has it and the first that no longer has it.
//
// nginx is read from a git repository: every release tag from -from on is
// scanned, so that the table knows what each release accepts. A module is
// read from the newest commit of its repository.
//
// Usage (from parsers/nginx):
//
//	go run ./internal/gendirectives -nginx /path/to/nginx.git -from 1.0.0 \
//	    -module lua=/path/to/lua-nginx-module.git ... -o directives_gen.go
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io"
	"log"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// commandRE matches one ngx_command_t entry: name, type flags, handler,
// conf offset, field offset and post. The name is a string or a macro.
// The field offset may add a macro to offsetof (nginx-vod-module's
// "BASE_OFFSET + offsetof(...)").
var commandRE = regexp.MustCompile(`\{\s*ngx_string\(\s*("[A-Za-z0-9_]+"|[A-Z][A-Z0-9_]*)\s*\)\s*,\s*([A-Z0-9_|\s]+?)\s*,\s*([A-Za-z0-9_]+)\s*,\s*([A-Za-z0-9_]+|0)\s*,\s*((?:[A-Z_][A-Z0-9_]*\s*\+\s*)?offsetof\s*\([^)]*\)|[^,{}]+?)\s*,\s*([^{};]*?)\s*\}`)

// includeRE matches a local #include, through which modules split a
// command table over several files (nginx-vod-module's
// ngx_http_vod_hls_commands.h, included into ngx_http_vod_conf.c).
var includeRE = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]+"([^"]+)"[^\n]*$`)

// maskRE matches a table of ngx_conf_enum_t or ngx_conf_bitmask_t values.
var maskRE = regexp.MustCompile(`(?s)ngx_conf_(?:enum|bitmask)_t\s+([A-Za-z0-9_]+)\[\]\s*=\s*\{(.*?)\};`)
var wordRE = regexp.MustCompile(`ngx_string\(\s*"([^"]+)"\s*\)`)
var defineRE = regexp.MustCompile(`(?m)^#\s*define\s+([A-Z][A-Z0-9_]*)\s+"([A-Za-z0-9_]+)"`)
var commentRE = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)

var contextFlags = []struct{ flag, ctx string }{
	{"NGX_MAIN_CONF", "ctxMain"},
	{"NGX_EVENT_CONF", "ctxEvents"},
	{"NGX_HTTP_MAIN_CONF", "ctxHTTP"},
	{"NGX_HTTP_SRV_CONF", "ctxHTTPServer"},
	{"NGX_HTTP_LOC_CONF", "ctxHTTPLocation"},
	{"NGX_HTTP_UPS_CONF", "ctxHTTPUpstream"},
	{"NGX_HTTP_SIF_CONF", "ctxHTTPServerIf"},
	{"NGX_HTTP_LIF_CONF", "ctxHTTPLocationIf"},
	{"NGX_HTTP_LMT_CONF", "ctxHTTPLimitExcept"},
	{"NGX_STREAM_MAIN_CONF", "ctxStream"},
	{"NGX_STREAM_SRV_CONF", "ctxStreamServer"},
	{"NGX_STREAM_UPS_CONF", "ctxStreamUpstream"},
	{"NGX_MAIL_MAIN_CONF", "ctxMail"},
	{"NGX_MAIL_SRV_CONF", "ctxMailServer"},
	{"NGX_RTMP_MAIN_CONF", "ctxRTMP"},
	{"NGX_RTMP_SRV_CONF", "ctxRTMPServer"},
	{"NGX_RTMP_APP_CONF", "ctxRTMPApp"},
	{"NGX_RTMP_REC_CONF", "ctxRTMPRecorder"},
	{"NGX_ANY_CONF", "ctxAny"},
}

var argFlags = []struct{ flag, arg string }{
	{"NGX_CONF_NOARGS", "argNone"},
	{"NGX_CONF_TAKE1", "arg1"}, {"NGX_CONF_TAKE2", "arg2"}, {"NGX_CONF_TAKE3", "arg3"},
	{"NGX_CONF_TAKE4", "arg4"}, {"NGX_CONF_TAKE5", "arg5"}, {"NGX_CONF_TAKE6", "arg6"},
	{"NGX_CONF_TAKE7", "arg7"},
	{"NGX_CONF_FLAG", "argFlag"}, {"NGX_CONF_ANY", "argAny"},
	{"NGX_CONF_1MORE", "arg1More"}, {"NGX_CONF_2MORE", "arg2More"},
}

// combined are the flags nginx defines as unions of others.
var combined = map[string][]string{
	"NGX_CONF_TAKE12":   {"NGX_CONF_TAKE1", "NGX_CONF_TAKE2"},
	"NGX_CONF_TAKE13":   {"NGX_CONF_TAKE1", "NGX_CONF_TAKE3"},
	"NGX_CONF_TAKE23":   {"NGX_CONF_TAKE2", "NGX_CONF_TAKE3"},
	"NGX_CONF_TAKE34":   {"NGX_CONF_TAKE3", "NGX_CONF_TAKE4"},
	"NGX_CONF_TAKE123":  {"NGX_CONF_TAKE1", "NGX_CONF_TAKE2", "NGX_CONF_TAKE3"},
	"NGX_CONF_TAKE1234": {"NGX_CONF_TAKE1", "NGX_CONF_TAKE2", "NGX_CONF_TAKE3", "NGX_CONF_TAKE4"},
}

// kinds maps the generic handlers to how the value is read.
var kinds = map[string]string{
	"ngx_conf_set_flag_slot":    "kindFlag",
	"ngx_conf_set_msec_slot":    "kindMsec",
	"ngx_conf_set_sec_slot":     "kindSec",
	"ngx_conf_set_size_slot":    "kindSize",
	"ngx_conf_set_off_slot":     "kindOff",
	"ngx_conf_set_num_slot":     "kindNum",
	"ngx_conf_set_enum_slot":    "kindEnum",
	"ngx_conf_set_bitmask_slot": "kindBitmask",
}

// variant is one declaration of a directive; a name has several when
// modules of different kinds (http, stream, mail) declare it.
type variant struct {
	ctx, block []string
	args       []string
	kind       string
	mask       string // name of the enum or bitmask table
	words      []string
}

func (v variant) key() string {
	return strings.Join(v.ctx, "|") + "/" + strings.Join(v.block, "|") + "/" + strings.Join(v.args, "|") + "/" + v.kind + "/" + strings.Join(v.words, " ")
}

type entry struct {
	name   string
	v      variant
	module string
	since  string // first release that has it ("" for modules)
	until  string // first release after since that no longer has it
	// wordSince is the first release of each word of v.words.
	wordSince map[string]string
}

// parseSource reads the command tables of one file.
func parseSource(src []byte, defines map[string]string, masks map[string][]string) []struct {
	name string
	v    variant
} {
	src = commentRE.ReplaceAll(src, nil)
	var out []struct {
		name string
		v    variant
	}
	for _, m := range commandRE.FindAllSubmatch(src, -1) {
		name := string(m[1])
		if strings.HasPrefix(name, `"`) {
			name = strings.Trim(name, `"`)
		} else if d, ok := defines[name]; ok {
			name = d
		} else {
			continue
		}
		flags := map[string]bool{}
		for _, f := range strings.Split(string(m[2]), "|") {
			f = strings.TrimSpace(f)
			flags[f] = true
			for _, c := range combined[f] {
				flags[c] = true
			}
		}
		var v variant
		for _, cf := range contextFlags {
			if flags[cf.flag] {
				v.ctx = append(v.ctx, cf.ctx)
				if flags["NGX_CONF_BLOCK"] {
					v.block = append(v.block, cf.ctx)
				}
			}
		}
		if len(v.ctx) == 0 {
			continue
		}
		for _, af := range argFlags {
			if flags[af.flag] {
				v.args = append(v.args, af.arg)
			}
		}
		v.kind = kinds[string(m[3])]
		if v.kind == "kindEnum" || v.kind == "kindBitmask" {
			v.mask = strings.TrimSpace(strings.TrimPrefix(string(m[6]), "&"))
			v.words = masks[v.mask]
			if v.words == nil {
				v.kind = "" // the table is elsewhere: do not guess
			}
		}
		if v.kind == "" {
			v.kind = "kindOther"
		}
		out = append(out, struct {
			name string
			v    variant
		}{name, v})
	}
	return out
}

func readMasks(src []byte, masks map[string][]string) {
	src = commentRE.ReplaceAll(src, nil)
	for _, m := range maskRE.FindAllSubmatch(src, -1) {
		var words []string
		for _, w := range wordRE.FindAllSubmatch(m[2], -1) {
			words = append(words, string(w[1]))
		}
		masks[string(m[1])] = words
	}
}

func readDefines(src []byte, defines map[string]string) {
	for _, m := range defineRE.FindAllSubmatch(src, -1) {
		defines[string(m[1])] = string(m[2])
	}
}

// tree reads the .c and .h files of one commit of a repository.
type tree struct {
	files map[string][]byte
}

func git(dir string, args ...string) []byte {
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("git %v: %v", args, err)
	}
	return out
}

// blobCache reads blobs through one git cat-file process.
type blobCache struct {
	in    io.WriteCloser
	out   *bufio.Reader
	blobs map[string][]byte
}

func newBlobCache(dir string) *blobCache {
	cmd := exec.Command("git", "--git-dir", dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		log.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	return &blobCache{in: in, out: bufio.NewReaderSize(out, 1<<20), blobs: map[string][]byte{}}
}

func (b *blobCache) get(id string) []byte {
	if v, ok := b.blobs[id]; ok {
		return v
	}
	fmt.Fprintln(b.in, id)
	hdr, err := b.out.ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	f := strings.Fields(hdr)
	n, _ := strconv.Atoi(f[2])
	buf := make([]byte, n+1)
	if _, err := io.ReadFull(b.out, buf); err != nil {
		log.Fatal(err)
	}
	b.blobs[id] = buf[:n]
	return buf[:n]
}

func readTree(dir, rev string, cache *blobCache, under string) tree {
	t := tree{files: map[string][]byte{}}
	args := []string{"ls-tree", "-r", rev}
	if under != "" {
		args = append(args, under)
	}
	for _, line := range strings.Split(string(git(dir, args...)), "\n") {
		tab := strings.IndexByte(line, '\t')
		if tab < 0 {
			continue
		}
		path := line[tab+1:]
		if !strings.HasSuffix(path, ".c") && !strings.HasSuffix(path, ".h") {
			continue
		}
		f := strings.Fields(line[:tab])
		if len(f) == 3 && f[1] == "blob" {
			t.files[path] = cache.get(f[2])
		}
	}
	return t
}

// commands reads every directive of a tree.
func (t tree) commands() map[string][]variant {
	defines, masks := map[string]string{}, map[string][]string{}
	for _, src := range t.files {
		readDefines(src, defines)
		readMasks(src, masks)
	}
	out := map[string][]variant{}
	paths := make([]string, 0, len(t.files))
	for p := range t.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if !strings.HasSuffix(p, ".c") {
			continue
		}
		for _, c := range parseSource(t.expand(p, t.files[p], 0), defines, masks) {
			dup := false
			for _, v := range out[c.name] {
				if v.key() == c.v.key() {
					dup = true
				}
			}
			if !dup {
				out[c.name] = append(out[c.name], c.v)
			}
		}
	}
	return out
}

// expand replaces the local #include lines of the source of file p with
// the headers they name, found beside p, as the preprocessor does.
func (t tree) expand(p string, src []byte, depth int) []byte {
	if depth > 3 || !bytes.Contains(src, []byte("#")) {
		return src
	}
	dir := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir = p[:i+1]
	}
	return includeRE.ReplaceAllFunc(src, func(line []byte) []byte {
		name := string(includeRE.FindSubmatch(line)[1])
		h, ok := t.files[dir+name]
		if !ok {
			return line
		}
		return t.expand(dir+name, h, depth+1)
	})
}

type version [3]int

func parseVersion(s string) (version, bool) {
	var v version
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) less(w version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// literal writes v as the release number directives.go uses:
// major*1e6 + minor*1e3 + patch, grouped by underscores.
func (v version) literal() string { return fmt.Sprintf("%d_%03d_%03d", v[0], v[1], v[2]) }

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

type moduleFlag []string

func (m *moduleFlag) String() string     { return strings.Join(*m, ",") }
func (m *moduleFlag) Set(s string) error { *m = append(*m, s); return nil }

func main() {
	nginxGit := flag.String("nginx", "", "git directory of nginx")
	from := flag.String("from", "1.0.0", "oldest release to read")
	out := flag.String("o", "directives_gen.go", "output file")
	var modules moduleFlag
	flag.Var(&modules, "module", "NAME=GITDIR of a third-party module (repeatable)")
	flag.Parse()
	if *nginxGit == "" {
		log.Fatal("usage: gendirectives -nginx GITDIR [-from X.Y.Z] [-module NAME=GITDIR]... [-o FILE]")
	}
	oldest, ok := parseVersion(*from)
	if !ok {
		log.Fatalf("bad -from %q", *from)
	}
	var releases []version
	for _, tag := range strings.Fields(string(git(*nginxGit, "tag", "--list", "release-*"))) {
		if v, ok := parseVersion(strings.TrimPrefix(tag, "release-")); ok && !v.less(oldest) {
			releases = append(releases, v)
		}
	}
	sort.Slice(releases, func(i, j int) bool { return releases[i].less(releases[j]) })
	cache := newBlobCache(*nginxGit)

	// For every variant of every directive: the releases that have it.
	type seen struct {
		v         variant
		first     version
		last      int // index in releases
		wordFirst map[string]version
	}
	byName := map[string][]*seen{}
	for ri, rel := range releases {
		cmds := readTree(*nginxGit, "release-"+rel.String(), cache, "src").commands()
		for name, vs := range cmds {
			for _, v := range vs {
				var s *seen
				// The same declaration in a later release, ignoring words
				// (which are tracked one by one).
				vk := v
				vk.words = nil
				for _, o := range byName[name] {
					ok := o.v
					ok.words = nil
					if ok.key() == vk.key() && o.last == ri-1 {
						s = o
					}
				}
				if s == nil {
					s = &seen{v: v, first: rel, wordFirst: map[string]version{}}
					byName[name] = append(byName[name], s)
				}
				s.last = ri
				s.v.words = v.words
				for _, w := range v.words {
					if _, ok := s.wordFirst[w]; !ok {
						s.wordFirst[w] = rel
					}
				}
			}
		}
	}
	newest := releases[len(releases)-1]
	var entries []entry
	for name, ss := range byName {
		for _, s := range ss {
			e := entry{name: name, v: s.v, wordSince: map[string]string{}}
			if s.first != releases[0] {
				e.since = s.first.String()
			}
			if s.last != len(releases)-1 {
				e.until = releases[s.last+1].String()
			}
			for w, f := range s.wordFirst {
				if f != s.first {
					e.wordSince[w] = f.String()
				}
			}
			entries = append(entries, e)
		}
	}
	for _, m := range modules {
		name, dir, ok := strings.Cut(m, "=")
		if !ok {
			log.Fatalf("bad -module %q", m)
		}
		mc := newBlobCache(dir)
		cmds := readTree(dir, "HEAD", mc, "").commands()
		if len(cmds) == 0 {
			log.Fatalf("module %s: no directives found", name)
		}
		for n, vs := range cmds {
			for _, v := range vs {
				entries = append(entries, entry{name: n, v: v, module: name})
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if a.module != b.module {
			return a.module < b.module
		}
		if a.since != b.since {
			return a.since < b.since
		}
		return a.v.key() < b.v.key()
	})

	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by gendirectives from nginx %s to %s and modules %s; DO NOT EDIT.\n\n", releases[0], newest, modules.names())
	fmt.Fprintf(&buf, "package nginx\n\n")
	fmt.Fprintf(&buf, "// newestRelease is the newest nginx release the table was generated from.\nconst newestRelease = %s\n\n", newest.literal())
	fmt.Fprintf(&buf, "// knownDirectiveList holds every declaration of a directive in nginx\n// %s to %s (all modules, built in or not) and in the third-party modules\n// named, sorted by name: its contexts, where it takes a block, its argument\n// counts, how its value is read, and the releases that have it. It is an\n// array of constants, so that starting the program costs nothing.\n", releases[0], newest)
	fmt.Fprintf(&buf, "var knownDirectiveList = [...]directiveEntry{\n")
	for _, e := range entries {
		blk := "0"
		if len(e.v.block) > 0 {
			blk = strings.Join(e.v.block, "|")
		}
		args := "0"
		if len(e.v.args) > 0 {
			args = strings.Join(e.v.args, "|")
		}
		fmt.Fprintf(&buf, "\t{%q, directiveSpec{contexts: %s, blockIn: %s, args: %s, kind: %s", e.name, strings.Join(e.v.ctx, "|"), blk, args, e.v.kind)
		if len(e.v.words) > 0 {
			ws := make([]string, len(e.v.words))
			for i, w := range e.v.words {
				ws[i] = w
				if s := e.wordSince[w]; s != "" {
					ws[i] = w + "@" + s
				}
			}
			fmt.Fprintf(&buf, ", words: %q", strings.Join(ws, " "))
		}
		if e.since != "" {
			v, _ := parseVersion(e.since)
			fmt.Fprintf(&buf, ", since: %s", v.literal())
		}
		if e.until != "" {
			v, _ := parseVersion(e.until)
			fmt.Fprintf(&buf, ", until: %s", v.literal())
		}
		if e.module != "" {
			fmt.Fprintf(&buf, ", module: %q", e.module)
		}
		fmt.Fprintf(&buf, "}},\n")
	}
	fmt.Fprintf(&buf, "}\n")
	formatted, err := format.Source(buf.Bytes())
	if err != nil {
		log.Fatalf("format: %v", err)
	}
	if err := os.WriteFile(*out, formatted, 0o644); err != nil {
		log.Fatal(err)
	}
}

func (m moduleFlag) names() string {
	var n []string
	for _, s := range m {
		name, _, _ := strings.Cut(s, "=")
		n = append(n, name)
	}
	return strings.Join(n, ", ")
}
