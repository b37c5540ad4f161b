// Package config reads .proxylint.yaml, the file a repository keeps its
// proxylint settings in: which rules run and how severe they are, the proxy
// release the configurations are for, the entry points that give fragments
// their context, what to skip and where the baseline lives.
//
// The file is strict: an unknown key, a misspelt rule ID or a bad value is an
// error with its line and column, because a setting that is silently ignored
// turns a CI gate off without anyone noticing.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/parsers/nginx"
	"github.com/proxylint/proxylint/rules"
)

// AllRules in rules.enable or rules.disable names every rule; the rules
// the other list names are the exceptions.
const AllRules = "all"

// Names are the file names looked for, in order of preference.
var Names = []string{".proxylint.yaml", ".proxylint.yml"}

// Config is a parsed configuration file. Zero values mean "not set": the
// command line and the built-in defaults decide.
type Config struct {
	// Path is the file read; Dir its directory, against which the
	// relative paths in it are resolved.
	Path, Dir string

	// Targets are the releases named by target: (one, or a list with one
	// per product); nil when the file names none.
	Targets []model.Target
	FailOn  *model.Severity

	// Enable and Disable list rule IDs, or AllRules; Severity overrides
	// rules' default severities.
	Enable, Disable []string
	Severity        map[string]model.Severity

	// WriteLocations are extra patterns (RE2, matched against location
	// paths) that mark a location as one whose requests change state.
	WriteLocations []*regexp.Regexp

	// EntryPoints are the main configuration files (absolute paths)
	// through which the fragments they include are linted.
	EntryPoints []string
	// Exclude holds patterns of paths to skip; a pattern with a "/" is
	// anchored at Dir (made absolute), one without matches base names.
	Exclude []string
	// IncludeRoots widen the tree includes may be read from (absolute).
	IncludeRoots []string
	// Baseline is the baseline file (absolute), when set.
	Baseline string
	// RequireReason makes a suppression without a reason an error.
	RequireReason *bool
	// Chain holds the declared hops around the configurations: the
	// client, the load balancers (outermost first) and the backend, with
	// the positions of their values in this file.
	Chain []*model.Hop
	// Directives declares directives of private nginx modules.
	Directives []nginx.CustomDirective
}

// Error is a problem in a configuration file, with its position.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	pos := model.Pos{File: e.File, Line: int32(e.Line), Col: int32(e.Col)}
	return pos.String() + ": " + e.Msg
}

// Find looks for a configuration file in dir and its parents, up to the
// root of the repository (the nearest directory holding .git). Outside a
// repository it looks up to the working directory when dir lies below it
// (and the working directory is not the file system's root), and at dir
// alone otherwise, so that a file planted in a shared directory above
// (/tmp) never applies. It returns "" when there is none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	limit := repoTop(dir)
	if limit == "" {
		limit = dir
		if wd, err := os.Getwd(); err == nil && wd != filepath.Dir(wd) && within(dir, wd) {
			limit = wd
		}
	}
	for {
		for _, n := range Names {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, confined(p, limit)
			}
		}
		parent := filepath.Dir(dir)
		if dir == limit || parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// within reports whether the absolute, clean path p is dir or lies below
// it.
func within(p, dir string) bool {
	return p == dir || dir == string(filepath.Separator) || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// confined checks that the configuration file found at p is inside limit
// (the repository, or the directory looked in outside one), symbolic links
// resolved: a committed .proxylint.yaml that is a link to a file outside
// the checkout is refused unread, so that no part of that file is printed
// in an error.
func confined(p, limit string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	if r, err := filepath.EvalSymlinks(limit); err == nil {
		limit = r
	}
	rel, err := filepath.Rel(limit, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is a symbolic link to %s, outside the repository (%s); a configuration file found there is read only from inside it (name it with --config to read it anyway)", p, real, limit)
	}
	return nil
}

// repoTop is the nearest directory at or above dir (absolute) that holds
// .git, or "".
func repoTop(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Root is the directory that the paths a configuration file names must lie
// in: the repository holding the working directory, or the working
// directory when it is in none. Only the command line (--include-root)
// reaches beyond it.
func Root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if top := repoTop(wd); top != "" {
		return top, nil
	}
	return wd, nil
}

// maxSize bounds a configuration file: it is a few lines of settings.
const maxSize = 1 << 20

// Load reads and checks the configuration file at path. It reads only a
// regular file (a FIFO or a link to /dev/zero is refused).
func Load(path string) (*Config, error) { return LoadMax(path, maxSize) }

// LoadMax is Load with the file bounded by max bytes as well (the run's
// --max-file-size), when that is less than the configuration file's own
// bound.
func LoadMax(path string, max int64) (*Config, error) {
	if max <= 0 || max > maxSize {
		max = maxSize
	}
	src, err := load.ReadRegular(path, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, filepath.Dir(abs), src)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse checks the configuration src, read from file (for messages), whose
// relative paths resolve against dir.
//
// The entry points and include roots it names must lie inside Root.
func Parse(file, dir string, src []byte) (*Config, error) {
	top, err := Root()
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, cfg: &Config{Path: file, Dir: dir}, root: top}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return p.cfg, nil // an empty file: every default
		}
		return nil, p.yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, p.errorf(&extra, "a second YAML document; .proxylint.yaml holds one")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return p.cfg, nil // only comments
	}
	if err := p.top(root); err != nil {
		return nil, err
	}
	return p.cfg, nil
}

type parser struct {
	file string
	cfg  *Config
	root string // see Root
}

// inside reports whether path, symbolic links resolved as far as it
// exists, lies in the root.
func (p *parser) inside(path string) bool {
	root := p.root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	real := path
	for q, rest := path, ""; ; {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			real = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(q)
		if parent == q {
			break
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
	rel, err := filepath.Rel(root, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	// What the file holds is cut; the paths proxylint names are not.
	for i, a := range args {
		switch v := a.(type) {
		case string:
			if v != p.root && v != p.rel() {
				args[i] = clip(v)
			}
		case error:
			args[i] = clip(v.Error())
		}
	}
	return &Error{File: p.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// maxEcho is the most of a key or value from the file that a message
// repeats, in bytes.
const maxEcho = 200

// clip cuts s, a key or a value a message repeats, to maxEcho bytes: a
// ten-megabyte key is not echoed whole.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

var yamlLine = lazyre.New(`^yaml: line (\d+): (.*)$`)

// yamlError gives a YAML syntax error the file's name and its line.
func (p *parser) yamlError(err error) error {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: p.file, Line: n, Msg: "invalid YAML: " + clip(m[2])}
	}
	return &Error{File: p.file, Msg: "invalid YAML: " + clip(strings.TrimPrefix(msg, "yaml: "))}
}

// topKeys are the keys of the file, with what each holds (for messages).
var topKeys = map[string]string{
	"target":          "the proxy the configurations are for",
	"fail-on":         "the severity that fails the run",
	"rules":           "enable, disable and severity",
	"write-locations": "patterns of locations that write",
	"entry-points":    "main configuration files",
	"exclude":         "paths to skip",
	"include-roots":   "directories includes may read from",
	"baseline":        "the baseline file",
	"require-reason":  "whether suppressions need a reason",
	"chain":           "the hops around the configurations (client, balancers, backend)",
	"directives":      "directives of private nginx modules (name, contexts, args)",
}

func keyList(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// pairs checks that n is a mapping without duplicate keys and calls fn for
// each key and value, in order.
func (p *parser) pairs(n *yaml.Node, what string, fn func(k, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, "%s must be a mapping of keys to values", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return p.errorf(k, "%s: keys must be plain names", what)
		}
		if seen[k.Value] {
			return p.errorf(k, "%s: %q is set twice", what, k.Value)
		}
		seen[k.Value] = true
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) top(root *yaml.Node) error {
	return p.pairs(root, "the configuration", func(k, v *yaml.Node) error {
		switch k.Value {
		case "target":
			items := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				items = v.Content
			}
			seen := map[model.Product]bool{}
			for _, it := range items {
				s, err := p.str(k, it)
				if err != nil {
					return err
				}
				t, err := model.ParseTarget(s)
				if err != nil {
					return p.errorf(it, "target: %v", err)
				}
				fam := t.Product
				if fam == model.Angie {
					fam = model.Nginx
				}
				if seen[fam] {
					return p.errorf(it, "target: %s: a second target for %s configurations", s, fam)
				}
				seen[fam] = true
				p.cfg.Targets = append(p.cfg.Targets, t)
			}
		case "fail-on":
			sev, err := p.severity(k, v)
			if err != nil {
				return err
			}
			p.cfg.FailOn = &sev
		case "rules":
			return p.rules(v)
		case "write-locations":
			pats, err := p.strs(k, v)
			if err != nil {
				return err
			}
			for i, s := range pats {
				re, err := regexp.Compile(s)
				if err != nil {
					return p.errorf(v.Content[i], "write-locations: %q is not a regular expression: %v", s, unwrapRegexp(err))
				}
				p.cfg.WriteLocations = append(p.cfg.WriteLocations, re)
			}
		case "entry-points":
			paths, err := p.strs(k, v)
			if err != nil {
				return err
			}
			for i, s := range paths {
				abs := p.abs(s)
				fi, err := os.Stat(abs)
				switch {
				case err != nil:
					return p.errorf(v.Content[i], "entry-points: %s does not exist (paths are relative to %s)", s, p.rel())
				case fi.IsDir():
					return p.errorf(v.Content[i], "entry-points: %s is a directory; name the main configuration file, e.g. %s", s, filepath.ToSlash(filepath.Join(s, "nginx.conf")))
				case !p.inside(abs):
					return p.errorf(v.Content[i], "entry-points: %s is outside the repository (%s); a configuration file names files inside it", s, p.root)
				}
				p.cfg.EntryPoints = append(p.cfg.EntryPoints, abs)
			}
		case "exclude":
			pats, err := p.strs(k, v)
			if err != nil {
				return err
			}
			for i, s := range pats {
				pat, err := ExcludePattern(s, p.cfg.Dir)
				if err != nil {
					return p.errorf(v.Content[i], "exclude: %v", err)
				}
				p.cfg.Exclude = append(p.cfg.Exclude, pat)
			}
		case "include-roots":
			dirs, err := p.strs(k, v)
			if err != nil {
				return err
			}
			for i, s := range dirs {
				if !p.inside(p.abs(s)) {
					return p.errorf(v.Content[i], "include-roots: %s is outside the repository (%s); only --include-root on the command line widens the tree beyond it", s, p.root)
				}
				p.cfg.IncludeRoots = append(p.cfg.IncludeRoots, p.abs(s))
			}
		case "baseline":
			s, err := p.str(k, v)
			if err != nil {
				return err
			}
			if !p.inside(p.abs(s)) {
				return p.errorf(v, "baseline: %s is outside the repository (%s); a configuration file names a baseline inside it (--baseline on the command line reads one anywhere)", s, p.root)
			}
			p.cfg.Baseline = p.abs(s)
		case "require-reason":
			b, err := p.boolean(k, v)
			if err != nil {
				return err
			}
			p.cfg.RequireReason = &b
		case "chain":
			return p.chain(v)
		case "directives":
			return p.directives(v)
		default:
			return p.errorf(k, "unknown key %q; the keys are %s", k.Value, keyList(topKeys))
		}
		return nil
	})
}

var rulesKeys = map[string]string{"enable": "", "disable": "", "severity": ""}

func (p *parser) rules(n *yaml.Node) error {
	return p.pairs(n, "rules", func(k, v *yaml.Node) error {
		switch k.Value {
		case "enable", "disable":
			ids, err := p.strs(k, v)
			if err != nil {
				return err
			}
			for i, id := range ids {
				if id == AllRules {
					// Every rule: the rules the other list names are
					// the exceptions.
					other := p.cfg.Disable
					if k.Value == "disable" {
						other = p.cfg.Enable
					}
					for _, o := range other {
						if o == AllRules {
							return p.errorf(v.Content[i], "rules: all rules are both enabled and disabled; name the exceptions in one list and \"all\" in the other")
						}
					}
					continue
				}
				if err := p.ruleID(v.Content[i], id); err != nil {
					return err
				}
			}
			if k.Value == "enable" {
				p.cfg.Enable = append(p.cfg.Enable, ids...)
			} else {
				p.cfg.Disable = append(p.cfg.Disable, ids...)
			}
		case "severity":
			p.cfg.Severity = map[string]model.Severity{}
			return p.pairs(v, "rules.severity", func(rk, rv *yaml.Node) error {
				if err := p.ruleID(rk, rk.Value); err != nil {
					return err
				}
				sev, err := p.severity(rk, rv)
				if err != nil {
					return err
				}
				p.cfg.Severity[rk.Value] = sev
				return nil
			})
		default:
			return p.errorf(k, "rules: unknown key %q; the keys are %s", k.Value, keyList(rulesKeys))
		}
		return nil
	})
}

func (p *parser) ruleID(n *yaml.Node, id string) error {
	if _, ok := rules.Lookup(id); ok {
		return nil
	}
	msg := fmt.Sprintf("unknown rule %q", id)
	if near := nearest(id); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	} else {
		msg += " (\"proxylint rules\" lists them)"
	}
	return p.errorf(n, "%s", msg)
}

func (p *parser) str(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Value == "" {
		return "", p.errorf(v, "%s: want a value", k.Value)
	}
	return v.Value, nil
}

func (p *parser) strs(k, v *yaml.Node) ([]string, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, p.errorf(v, "%s: want a list, e.g. %s: [%s]", k.Value, k.Value, v.Value)
	}
	out := make([]string, 0, len(v.Content))
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || e.Value == "" {
			return nil, p.errorf(e, "%s: each entry must be a single non-empty value", k.Value)
		}
		out = append(out, e.Value)
	}
	return out, nil
}

func (p *parser) severity(k, v *yaml.Node) (model.Severity, error) {
	s, err := p.str(k, v)
	if err != nil {
		return 0, err
	}
	sev, err := model.ParseSeverity(s)
	if err != nil {
		return 0, p.errorf(v, "%s: %v", k.Value, err)
	}
	return sev, nil
}

func (p *parser) boolean(k, v *yaml.Node) (bool, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		return v.Value == "true" || v.Value == "True" || v.Value == "TRUE", nil
	}
	return false, p.errorf(v, "%s: want true or false, not %q", k.Value, v.Value)
}

// abs resolves a path written in the file against its directory.
func (p *parser) abs(s string) string {
	s = filepath.FromSlash(s)
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(p.cfg.Dir, s)
}

// rel names the file's directory for messages.
func (p *parser) rel() string {
	if d := filepath.Dir(p.file); d != "." {
		return d + "/"
	}
	return "the directory of " + filepath.Base(p.file)
}

func unwrapRegexp(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// ExcludePattern turns a pattern as a person writes it into the form the
// loader matches: one without "/" matches base names anywhere ("*.bak",
// "vendor"); one with "/" is anchored at dir ("deploy/old/*.conf"); a
// trailing "/" or "/**" covers everything below a directory.
func ExcludePattern(s, dir string) (string, error) {
	pat := filepath.ToSlash(s)
	below := strings.HasSuffix(pat, "/") || strings.HasSuffix(pat, "/**")
	pat = strings.TrimSuffix(strings.TrimSuffix(pat, "/"), "/**")
	if pat == "" {
		return "", fmt.Errorf("%q excludes nothing", s)
	}
	if _, err := path.Match(pat, ""); err != nil {
		return "", fmt.Errorf("%q is not a valid pattern: %w", s, err)
	}
	if !strings.Contains(pat, "/") {
		return pat, nil
	}
	if !path.IsAbs(pat) {
		pat = filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(pat)))
	}
	if below {
		pat += "/**"
	}
	return pat, nil
}

// nearest suggests the registered rule ID closest to a misspelt one.
func nearest(id string) string {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	return suggest.Nearest(id, ids, 3)
}

// Template is the commented configuration "proxylint init" writes: every
// key with its default, so that reading it changes nothing until a line is
// edited.
//
// The targets are commented out: without them nginx configurations are
// linted for every release still shipped. local, the release of the nginx
// on the PATH of the machine init runs on ("nginx:1.22.1"; "" for none),
// is written as a commented hint, never as a setting: a laptop's nginx is
// not production's.
func Template(local string) string {
	var b strings.Builder
	b.WriteString(`# proxylint configuration (https://github.com/proxylint/proxylint#configuration).
# proxylint reads, for each file it lints, the nearest .proxylint.yaml in
# the directories above that file, up to the repository root; --config FILE
# names one for every file, --no-config ignores them. Command-line flags
# beat what this file says. Relative paths are relative to this file's
# directory.

# The proxies and releases the configurations are written for, because
# defaults differ: since nginx 1.29.7, upstream blocks pool connections by
# default. Without target, nginx configurations are linted for every
# release from 1.18 (what distributions ship) and Envoy's for the newest.
# Name the releases production runs, one per product: nginx:1.28,
# nginx:newest, angie, angie:1.11, envoy:1.31, istio:1.23, ingress-nginx,
# nginx-ingress, envoy-gateway:1.1.2, or a list: [nginx:1.24, envoy:1.33].
# target: nginx:1.28
`)
	if local != "" {
		fmt.Fprintf(&b, `# This machine runs %s (nginx -v on the PATH). Name it only if
# production runs that release too: linted for a newer nginx than
# production's, a configuration loses the findings about what
# production's defaults do.
# target: %s
`, local, local)
	}
	b.WriteString(`
# Exit with code 1 when a finding is at or above this severity: error,
# warning or note.
fail-on: warning

rules:
  # Rules to run that are off by default, and rules not to run; "all" in
  # one list names every rule, and the other list the exceptions.
  enable: []
  disable: []
  # Severity per rule (error, warning or note), e.g.
  #   upstream-no-keepalive: error
  severity: {}
  # The rules ("proxylint explain RULE" says why each matters):
`)
	for _, r := range rules.All() {
		state := r.Severity.String()
		if r.Off {
			state += ", off by default"
		}
		fmt.Fprintf(&b, "  #   %s (%s): %s\n", r.ID, state, r.Summary)
	}
	b.WriteString(`
# Regular expressions (RE2) matched against location paths that mark
# locations whose requests change state (retrying them replays the write),
# in addition to the built-in ones (orders, payments, checkout, uploads...).
write-locations: []
#  - '^/api/v[0-9]+/(invoices|refunds)'

# Main configuration files (nginx.conf) through which the fragments they
# include are linted when a fragment is named on the command line, as a
# pre-commit hook does: a changed conf.d/app.conf is then read inside the
# http block nginx.conf puts it in.
entry-points: []
#  - deploy/nginx/nginx.conf

# Paths to skip. A pattern without "/" matches file and directory names
# anywhere ("*.bak"); one with "/" is relative to this file ("vendor/",
# "deploy/old/*.conf").
exclude: []

# Directories outside the linted tree that includes may read from. They
# and the entry points must lie inside the repository; only
# --include-root on the command line reaches beyond it.
include-roots: []

# Findings recorded with --write-baseline FILE are not reported again;
# only new ones fail the run.
# baseline: .proxylint-baseline.json

# Make a "# proxylint:ignore RULE" comment without "-- reason" an error.
require-reason: false

# The hops around the linted configurations, in the order a request
# crosses them: how long clients wait, the load balancers in front
# (aws-alb, cloudflare, gcp-lb, or their values), and the backend (a preset
# from docs/presets.md, or its idle keep-alive timeout). Flags
# (--client-timeout, --behind, --backend) replace the matching hops.
chain: []
#  - client: 30s
#  - balancer: aws-alb
#  - balancer: {preset: cloudflare, timeout: 125s}
#  - backend: {preset: node, idle: 65s}
`)
	return b.String()
}

// chain reads the hops around the configurations:
//
//	chain:
//	  - client: 30s
//	  - balancer: aws-alb
//	  - balancer: {preset: cloudflare, timeout: 125s}
//	  - backend: {preset: node, idle: 65s}
//
// in the order a request crosses them.
func (p *parser) chain(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return p.errorf(n, "chain must be a list of hops, outermost first: client, balancer..., backend")
	}
	rank := map[string]int{"client": 0, "balancer": 1, "backend": 2}
	last := -1
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 {
			return p.errorf(item, "chain: each hop is one of client, balancer or backend, e.g. \"- balancer: aws-alb\"")
		}
		k, v := item.Content[0], item.Content[1]
		r, ok := rank[k.Value]
		if !ok {
			return p.errorf(k, "chain: unknown hop %q; the hops are client, balancer and backend (the linted configurations link by address)", k.Value)
		}
		if r < last || (r == last && r != 1) {
			return p.errorf(k, "chain: %s is out of order; list the client first, then the balancers from the outside in, then the backend", k.Value)
		}
		last = r
		h, err := p.hop(k.Value, v)
		if err != nil {
			return err
		}
		p.cfg.Chain = append(p.cfg.Chain, h)
	}
	return nil
}

// hopFields are the values a hop may set, per kind.
var hopFields = map[string]map[string]string{
	"client":   {"timeout": "how long clients wait for a response"},
	"balancer": {"preset": "aws-alb, cloudflare or gcp-lb", "name": "a name for messages", "timeout": "how long it waits for the proxy", "idle": "how long it keeps idle client connections", "pool-idle": "how long it keeps idle connections to the proxy"},
	"backend":  {"preset": "a backend preset", "name": "a name for messages", "idle": "how long it keeps idle connections from the proxy", "cancels": "whether it stops work when the proxy goes away"},
}

func (p *parser) pos(n *yaml.Node) model.Pos {
	return model.Pos{File: p.file, Line: int32(n.Line), Col: int32(n.Column)}
}

// hop reads one hop: a scalar (a duration, or a preset name) or a mapping
// of its values.
func (p *parser) hop(kind string, v *yaml.Node) (*model.Hop, error) {
	at := "chain: " + kind
	if v.Kind == yaml.ScalarNode {
		var h *model.Hop
		var err error
		switch kind {
		case "client":
			var d time.Duration
			if d, err = model.ParseDuration(v.Value); err == nil {
				h = model.ClientHop(d, at, p.pos(v))
			}
		case "balancer":
			h, err = model.BalancerHop(v.Value, at, p.pos(v))
		case "backend":
			h, err = model.BackendHop(v.Value, at, p.pos(v))
		}
		if err != nil {
			return nil, p.errorf(v, "%s: %v", at, err)
		}
		return h, nil
	}
	h := &model.Hop{Kind: model.HopKind(kind), Name: kind}
	if kind == "balancer" {
		h.Name = "the hop in front"
	}
	if kind == "backend" {
		h.Name = "the backend"
	}
	// A preset first, whatever its place in the mapping, so that the
	// other keys override its values.
	if v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			if v.Content[i].Value != "preset" || kind == "client" {
				continue
			}
			pv := v.Content[i+1]
			var err error
			if kind == "balancer" {
				h, err = model.BalancerHop(pv.Value, at, p.pos(pv))
			} else {
				h, err = model.BackendHop(pv.Value, at, p.pos(pv))
			}
			if err != nil || h.Preset == "" {
				return nil, p.errorf(pv, "%s: preset %q is not known", at, pv.Value)
			}
		}
	}
	err := p.pairs(v, at, func(k, val *yaml.Node) error {
		fields := hopFields[kind]
		if _, ok := fields[k.Value]; !ok {
			return p.errorf(k, "%s: unknown key %q; the keys are %s", at, k.Value, keyList(fields))
		}
		dur := func() (model.Setting[time.Duration], error) {
			d, err := model.ParseDuration(val.Value)
			if err != nil && errors.Is(err, model.ErrDurationRange) {
				return model.Setting[time.Duration]{}, p.errorf(val, "%s: %s: %v", at, k.Value, err)
			}
			if err != nil || val.Kind != yaml.ScalarNode {
				return model.Setting[time.Duration]{}, p.errorf(val, "%s: %s: want a duration such as 30s", at, k.Value)
			}
			return model.Set(d, at+" "+k.Value, "chain", p.pos(val)), nil
		}
		var err error
		switch k.Value {
		case "preset":
		case "name":
			h.Name = val.Value
		case "timeout":
			h.RequestTimeout, err = dur()
		case "idle":
			h.IdleTimeout, err = dur()
		case "pool-idle":
			h.PoolIdleTimeout, err = dur()
		case "cancels":
			var b bool
			if b, err = p.boolean(k, val); err == nil {
				h.CancelsOnDisconnect = model.Set(b, at+" cancels", "chain", p.pos(val))
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// ForFile is the configuration file that applies to the file at path: the
// one Find finds from the file's directory ("" when none). Standard input
// ("-") is read as a file in the working directory.
func ForFile(path string) (string, error) {
	if path == "-" {
		return Find(".")
	}
	return Find(filepath.Dir(path))
}

// Nested lists the directories below dir, not dir itself, that hold a
// configuration file of their own, in the order a walk reaches them
// (lexical, hidden directories not entered, symbolic links not followed),
// named as joined onto dir. It does not look below such a directory, whose
// own file says what is excluded there, nor into a directory skip reports
// (given its absolute path: one that dir's configuration excludes). The
// files under such a directory are linted under its file, not under the
// one that applies to dir.
func Nested(dir string, skip func(abs string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			// The loader's own walk reports what cannot be read.
			if e != nil && e.IsDir() && p != dir {
				return filepath.SkipDir
			}
			return nil
		case !e.IsDir() || p == dir:
			return nil
		case strings.HasPrefix(e.Name(), "."):
			return filepath.SkipDir
		}
		if skip != nil {
			if abs, err := filepath.Abs(p); err == nil && skip(abs) {
				return filepath.SkipDir
			}
		}
		for _, n := range Names {
			if fi, err := os.Stat(filepath.Join(p, n)); err == nil && !fi.IsDir() {
				out = append(out, p)
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out, err
}

// Excluded reports whether the absolute path p is left out by one of the
// patterns of Config.Exclude (or of ExcludePattern), as the loaders match
// them: a pattern without "/" by p's base name, one with "/" by p itself,
// and one ending in "/**" by every path below its directory.
func Excluded(p string, patterns []string) bool {
	slashed := filepath.ToSlash(p)
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, slashed); ok {
			return true
		}
		if ok, _ := path.Match(pat, path.Base(slashed)); ok {
			return true
		}
		if dir, ok := strings.CutSuffix(pat, "/**"); ok && strings.HasPrefix(slashed+"/", dir+"/") {
			return true
		}
	}
	return false
}
