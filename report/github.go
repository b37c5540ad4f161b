package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// GitHub writes one workflow command per unsuppressed finding, so that a
// GitHub Actions run annotates the lines in the pull request:
//
//	::warning file=nginx.conf,line=6,col=13,title=upstream-no-keepalive::proxy_pass to ...
//
// followed by the summary as a plain log line, unless Quiet.
func GitHub(w io.Writer, in *Input) error {
	bw := bufio.NewWriter(w)
	for _, f := range in.Findings {
		if f.Suppression != nil {
			continue
		}
		props := []string{}
		if f.Pos.File != "" {
			props = append(props, "file="+ghProperty(Escape(in.rootPath(f.Pos.File))))
			if f.Pos.Line >= 1 {
				props = append(props, "line="+strconv.Itoa(int(f.Pos.Line)))
				if f.Pos.Col >= 1 {
					props = append(props, "col="+strconv.Itoa(int(f.Pos.Col)))
				}
				if f.End.IsValid() && f.End.File == f.Pos.File && f.Pos.Before(f.End) {
					props = append(props, "endLine="+strconv.Itoa(int(f.End.Line)))
					if f.End.Col >= 1 {
						props = append(props, "endColumn="+strconv.Itoa(int(f.End.Col)))
					}
				}
			}
		}
		props = append(props, "title="+ghProperty(Escape(f.Rule)))
		// What comes from the files read is escaped part by part, as in
		// the text report: the log shows it, and a terminal escape or a
		// line break in a file name must not act there. The line breaks
		// between the parts are the runner's (%0A).
		msg := Escape(f.Message)
		for _, r := range f.Related {
			if r.Pos.IsValid() {
				msg += "\n" + Escape(in.rootPosText(r.Pos)) + ": " + Escape(r.Message)
			} else {
				msg += "\n" + Escape(r.Message)
			}
		}
		if f.Fix.Message != "" {
			msg += "\n" + fixLabel(f.Fix) + ": " + Escape(f.Fix.Message)
		}
		fmt.Fprintf(bw, "::%s %s::%s\n", ghCommand(f.Severity), strings.Join(props, ","), ghData(msg))
	}
	if !in.Quiet {
		fmt.Fprintln(bw, summary(Count(in.Findings), in.Known, in.Skipped))
	}
	return bw.Flush()
}

// ghCommand maps a severity to a workflow command.
func ghCommand(s model.Severity) string {
	switch s {
	case model.Error:
		return "error"
	case model.Warning:
		return "warning"
	}
	return "notice"
}

// ghData escapes a command's message as the runner expects.
var ghDataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

func ghData(s string) string { return ghDataEscaper.Replace(s) }

// ghProperty escapes a command property's value: also ":" and ",", which
// delimit properties.
var ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func ghProperty(s string) string { return ghPropertyEscaper.Replace(s) }
