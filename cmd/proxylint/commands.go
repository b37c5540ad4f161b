package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"

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
	fmt.Fprintln(tw, "RULE\tSEVERITY\tSUMMARY")
	for _, r := range rules.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Summary)
	}
	if err := tw.Flush(); err != nil {
		return exitError
	}
	fmt.Fprintln(stdout, "\nRun \"proxylint explain RULE\" for why a rule matters and how to fix what it finds.")
	return exitClean
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
	fmt.Fprintf(stdout, "%s\nSeverity: %s\n", strings.TrimRight(r.Doc(), "\n"), r.Severity)
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
		fmt.Fprintln(stderr, "usage: proxylint init [--force] [FILE]")
		return exitError
	}
	path := config.Names[0]
	if flags.NArg() == 1 {
		path = flags.Arg(0)
	}
	if path == "-" {
		fmt.Fprint(stdout, config.Template(pathTarget()))
		return exitClean
	}
	// A committed symbolic link must not make init write elsewhere.
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		fmt.Fprintf(stderr, "proxylint init: %s is a symbolic link; refusing to write through it\n", path)
		return exitError
	} else if err == nil && *force && !fi.Mode().IsRegular() {
		fmt.Fprintf(stderr, "proxylint init: %s is not a regular file; refusing to overwrite it\n", path)
		return exitError
	}
	mode := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if *force {
		mode = os.O_WRONLY | os.O_CREATE | os.O_TRUNC | syscall.O_NOFOLLOW
	}
	file, err := os.OpenFile(path, mode, 0o644)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(stderr, "proxylint init: %s exists; --force overwrites it\n", path)
		return exitError
	}
	if err == nil {
		_, err = io.WriteString(file, config.Template(pathTarget()))
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "proxylint init: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stderr, "proxylint: wrote %s; every setting in it is the default until you edit it\n", path)
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

// pathTarget is the target of the nginx on PATH ("nginx:1.22.1" from "nginx
// version: nginx/1.22.1"), or "nginx" when there is none: proxylint init
// writes what the machine it runs on has.
func pathTarget() string {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		return "nginx"
	}
	out, err := exec.Command(bin, "-v").CombinedOutput()
	if err != nil {
		return "nginx"
	}
	return targetOfVersion(string(out))
}

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
