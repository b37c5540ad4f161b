package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

// A run that stops before it lints (a bad flag, a bad configuration file,
// standard input that cannot be read) still writes the SARIF reports it
// was asked for: a log with no result whose invocation is unsuccessful,
// with the error as its notification. A CI step that uploads the SARIF
// after proxylint then finds a file, and code scanning shows why the run
// failed, instead of the upload failing for want of a file.

// sarifTargets are the SARIF reports a command line asks for: the files of
// --format sarif=FILE, and --output (or standard output, "") for --format
// sarif without a file. The flags are read as written, without the flag
// package, since the command line may be the thing that is wrong.
func sarifTargets(args []string) []string {
	var formats []string
	output, haveOutput := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		switch name {
		case "format", "f":
			formats = append(formats, value)
		case "output":
			output, haveOutput = value, true
		}
	}
	var out []string
	for _, v := range formats {
		switch format, file, hasFile := strings.Cut(v, "="); {
		case format != "sarif":
		case hasFile && file != "":
			out = append(out, file)
		case !hasFile && haveOutput:
			out = append(out, output)
		case !hasFile:
			out = append(out, "")
		}
	}
	return out
}

// writeFailedSARIF writes the SARIF of a run that stopped with msg (pos is
// where, when a file is at fault) to each target ("" is standard output).
// What it cannot write it says on stderr; the run fails either way.
func writeFailedSARIF(targets []string, msg string, pos model.Pos, stdout, stderr io.Writer) {
	if len(targets) == 0 {
		return
	}
	wd, _ := os.Getwd()
	in := &report.Input{Rules: rules.All(), Version: strings.TrimPrefix(buildVersion(), "v"), Dir: wd, Root: repoRoot(&lintFlags{}, wd),
		Diagnostics: []model.Diagnostic{{Severity: model.Error, Pos: pos, Message: msg, Fatal: true}}}
	repo := repository(&lintFlags{}, wd)
	for _, file := range targets {
		var err error
		if file == "" || leadsToStdout(file) {
			err = report.SARIF(stdout, in)
		} else {
			var d destination
			if d, err = resolveDestination(file, repo); err == nil {
				err = writeDestination(d, stdout, stderr, nil, func(w io.Writer) error { return report.SARIF(w, in) })
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "proxylint: the SARIF of the failed run: %v\n", namedError(file, err))
		}
	}
}

// messageRecorder passes what is written on to w and keeps the first
// line of it, the error a failed step printed.
type messageRecorder struct {
	w     io.Writer
	first string
	seen  bool
}

func (m *messageRecorder) Write(p []byte) (int, error) {
	if !m.seen {
		line, _, _ := bytes.Cut(p, []byte("\n"))
		m.first, m.seen = strings.TrimPrefix(string(line), "proxylint: "), true
	}
	return m.w.Write(p)
}
