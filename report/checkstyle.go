package report

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Checkstyle writes the findings as a Checkstyle XML report, the format
// golangci-lint, hadolint and ESLint write for CI servers (Jenkins' Warnings
// plugin, reviewdog, SonarQube): one <file> per file with findings, named
// relative to the repository root as SARIF names it, and one <error> per
// unsuppressed finding, with its line, column, severity (error, warning or
// info), message and the rule as source ("proxylint.RULE"). A finding
// about a whole file has line 0.
func Checkstyle(w io.Writer, in *Input) error {
	var bw strings.Builder
	bw.WriteString(xml.Header)
	bw.WriteString(`<checkstyle version="4.3">` + "\n")
	for _, file := range in.findingFiles() {
		bw.WriteString(`  <file name="` + xmlAttr(in.rootPath(file.name)) + `">` + "\n")
		for _, f := range file.findings {
			bw.WriteString(`    <error line="` + strconv.Itoa(int(max(f.Pos.Line, 0))) + `"`)
			if f.Pos.Col >= 1 {
				bw.WriteString(` column="` + strconv.Itoa(int(f.Pos.Col)) + `"`)
			}
			bw.WriteString(` severity="` + checkstyleSeverity(f.Severity) + `" message="` + xmlAttr(f.Message) + `" source="proxylint.` + xmlAttr(f.Rule) + `"/>` + "\n")
		}
		bw.WriteString("  </file>\n")
	}
	bw.WriteString("</checkstyle>\n")
	_, err := io.WriteString(w, bw.String())
	return err
}

func checkstyleSeverity(s model.Severity) string {
	switch s {
	case model.Error:
		return "error"
	case model.Warning:
		return "warning"
	}
	return "info"
}
