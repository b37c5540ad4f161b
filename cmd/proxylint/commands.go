package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/config"
	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// buildVersion is the version of this build, from the build information
// the go command records: the module version for "go install
// ...@v0.2.0", the commit for a build from a checkout, else "(devel)".
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return rev + dirty
}

func cmdRules(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "proxylint rules: unexpected argument %q\n", args[0])
		return exitError
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tDEFAULT\tPRODUCTS\tSUMMARY")
	for _, r := range rules.All() {
		state := "on"
		if r.Off {
			state = "off"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Severity, state, productsOf(r), r.Summary)
	}
	if err := tw.Flush(); err != nil {
		return exitError
	}
	fmt.Fprintln(stdout, "\nDEFAULT says whether a rule runs unless --enable, --disable, --only or .proxylint.yaml says otherwise;")
	fmt.Fprintln(stdout, "PRODUCTS which configurations it reads (kubernetes: Istio, ingress-nginx, NGINX Inc's controller and Envoy Gateway manifests).")
	fmt.Fprintln(stdout, "Run \"proxylint explain RULE\" for why a rule matters and how to fix what it finds.")
	return exitClean
}

// productsOf names the configurations rule r reads: its products; for a
// rule that reports the loaders' problems, the input its tags name; "all"
// for a rule of every product.
func productsOf(r *rules.Rule) string {
	names := func(ps []model.Product) string {
		var out []string
		kube := false
		for _, p := range ps {
			switch {
			case !p.Kubernetes():
				out = append(out, string(p))
			case !kube:
				kube = true
				if len(ps) == 1 {
					// One platform is named as such.
					out = append(out, string(p))
				} else {
					out = append(out, "kubernetes")
				}
			}
		}
		return strings.Join(out, ", ")
	}
	if r.Products != nil {
		return names(r.Products)
	}
	if r.Check == nil {
		for _, tag := range r.Tags {
			switch tag {
			case "nginx":
				return names([]model.Product{model.Nginx, model.Angie})
			case "envoy":
				return names([]model.Product{model.Envoy})
			case "kubernetes":
				return names([]model.Product{model.Istio, model.IngressNginx, model.NginxIngress, model.EnvoyGateway})
			}
		}
	}
	return "all"
}

func cmdExplain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: proxylint explain RULE (see proxylint rules)")
		return exitError
	}
	r, ok := rules.Lookup(args[0])
	if !ok {
		if near := nearestRule(args[0]); near != "" {
			fmt.Fprintf(stderr, "proxylint explain: unknown rule %q; did you mean %q?\n", args[0], near)
			return exitError
		}
		fmt.Fprintf(stderr, "proxylint explain: unknown rule %q; the rules are:\n", args[0])
		for _, r := range rules.All() {
			fmt.Fprintf(stderr, "  %s\n", r.ID)
		}
		return exitError
	}
	state := "on"
	if r.Off {
		state = "off (--enable " + r.ID + " runs it)"
	}
	fmt.Fprintf(stdout, "%s\nSeverity: %s\nDefault: %s\nProducts: %s\n", strings.TrimRight(r.Doc(), "\n"), r.Severity, state, productsOf(r))
	if len(r.Aliases) > 0 {
		// Other linters' names for the check, accepted wherever an ID is.
		fmt.Fprintf(stdout, "Also accepted as: %s\n", strings.Join(r.Aliases, ", "))
	}
	return exitClean
}

func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "proxylint version: unexpected argument %q\n", args[0])
		return exitError
	}
	fmt.Fprintf(stdout, "proxylint %s (%s)\n", buildVersion(), runtime.Version())
	return exitClean
}

func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 {
		return cmdExplain(args, stdout, stderr)
	}
	fmt.Fprint(stdout, usageText)
	return exitClean
}

// cmdInit writes a commented .proxylint.yaml (or FILE; "-" prints it). It
// refuses to overwrite a file unless --force.
func cmdInit(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("proxylint init", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	force := flags.Bool("force", false, "")
	if err := flags.Parse(args); err != nil || flags.NArg() > 1 {
		if err != nil {
			fmt.Fprintf(stderr, "proxylint init: %v\n", flagError(flags, err))
		}
		fmt.Fprintln(stderr, "usage: proxylint init [--force] [FILE]")
		return exitError
	}
	path := config.Names[0]
	if flags.NArg() == 1 {
		path = flags.Arg(0)
	}
	if path == "-" {
		fmt.Fprint(stdout, config.Template(localNginx()))
		return exitClean
	}
	// A committed symbolic link must not make init write elsewhere: not
	// the file itself, nor a directory on its way out of the repository.
	if wd, err := os.Getwd(); err == nil {
		if repo := gitTop(wd); repo != "" {
			abs := absIn(wd, path)
			realRepo, rerr := filepath.EvalSymlinks(repo)
			if real := realAsFarAsItExists(abs); rerr == nil && within(abs, repo) && !within(real, realRepo) {
				fmt.Fprintf(stderr, "proxylint init: %s leads out of the repository through a symbolic link (to %s); refusing to write there\n", path, real)
				return exitError
			}
		}
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		fmt.Fprintf(stderr, "proxylint init: %s is a symbolic link; refusing to write through it\n", path)
		return exitError
	case err == nil && *force && !fi.Mode().IsRegular():
		fmt.Fprintf(stderr, "proxylint init: %s is not a regular file; refusing to overwrite it\n", path)
		return exitError
	case err == nil && !*force:
		fmt.Fprintf(stderr, "proxylint init: %s exists; --force overwrites it\n", path)
		return exitError
	}
	text := config.Template(localNginx())
	if err == nil {
		// --force replaces the file by rename, never writing through
		// it: another name for it (a hard link) keeps what it held.
		err = renameInto(path, fi.Mode().Perm(), func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		})
	} else {
		var file *os.File
		file, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			fmt.Fprintf(stderr, "proxylint init: %s exists; --force overwrites it\n", path)
			return exitError
		}
		if err == nil {
			_, err = io.WriteString(file, text)
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "proxylint init: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stderr, "proxylint: wrote %s; every setting in it is the default until you edit it (set target: to the releases production runs)\n", path)
	return exitClean
}

// nearestRule is the rule ID a misspelt one was probably meant to be, or "".
func nearestRule(id string) string {
	ids := make([]string, 0, len(rules.All()))
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	return suggest.Nearest(strings.ToLower(id), ids, 3)
}

// localNginx is the target of the nginx on PATH ("nginx:1.22.1" from
// "nginx version: nginx/1.22.1"), or "" when there is none or its version
// cannot be told: proxylint init writes it as a hint.
func localNginx() string {
	if t := pathTarget(); t != "nginx" {
		return t
	}
	return ""
}

// pathTarget is the target of the nginx on PATH, or "nginx" when there is
// none.
func pathTarget() string {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		return "nginx"
	}
	// An nginx that never answers (a wrapper waiting on a lock, a
	// script reading standard input) must not hang init.
	ctx, cancel := context.WithTimeout(context.Background(), nginxVersionWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-v")
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "nginx"
	}
	return targetOfVersion(string(out))
}

// nginxVersionWait bounds how long init waits for "nginx -v", which
// answers at once.
const nginxVersionWait = 5 * time.Second

// targetOfVersion reads "nginx version: nginx/1.22.1" (or
// "Angie/1.11.3") into "nginx:1.22.1"; "nginx" when it cannot.
func targetOfVersion(out string) string {
	for _, prod := range []string{"nginx", "Angie"} {
		i := strings.Index(out, prod+"/")
		if i < 0 {
			continue
		}
		ver := out[i+len(prod)+1:]
		if j := strings.IndexAny(ver, " \n\r("); j >= 0 {
			ver = ver[:j]
		}
		parts := strings.Split(ver, ".")
		if len(parts) < 2 {
			continue
		}
		// The patch release matters: nginx 1.29.7 changed defaults.
		t := strings.ToLower(prod) + ":" + strings.Join(parts[:min(len(parts), 3)], ".")
		if _, err := model.ParseTarget(t); err == nil {
			return t
		}
	}
	return "nginx"
}
