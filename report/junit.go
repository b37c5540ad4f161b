package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/proxylint/proxylint/rules"
)

// JUnit writes the findings as a JUnit XML report, which GitLab (test
// reports of a merge request), Jenkins, Azure Pipelines and most CI servers
// show: one <testsuite> per file read, named relative to the repository
// root; one <testcase> per unsuppressed finding, failed (<failure>) when
// it is at or above Input.FailOn, in error (<error>) when the file could
// not be read, and passed with its text in <system-out> when it is below
// the threshold; a file without findings has one passing testcase, so that
// the files linted show as passed tests.
func JUnit(w io.Writer, in *Input) error {
	type suite struct {
		name                    string
		cases                   []string
		tests, failures, errors int
	}
	var suites []*suite
	byName := map[string]*suite{}
	add := func(name string) *suite {
		s := byName[name]
		if s == nil {
			s = &suite{name: name}
			byName[name] = s
			suites = append(suites, s)
		}
		return s
	}
	for _, f := range in.Files {
		add(f.Path)
	}
	for _, f := range in.Findings {
		if f.Suppression != nil {
			continue
		}
		s := add(f.Pos.File)
		s.tests++
		pos := in.rootPosText(f.Pos)
		head := fmt.Sprintf(`    <testcase name="%s" classname="%s" time="0">`, xmlAttr(f.Rule+" at "+pos), xmlAttr(in.rootPath(f.Pos.File)))
		body := xmlText(in.junitDetail(f, pos))
		switch {
		case f.Fatal:
			s.errors++
			s.cases = append(s.cases, head+"\n"+fmt.Sprintf(`      <error message="%s" type="%s">%s</error>`, xmlAttr(f.Message), f.Severity, body)+"\n    </testcase>")
		case in.FailOn == 0 || f.Severity >= in.FailOn:
			s.failures++
			s.cases = append(s.cases, head+"\n"+fmt.Sprintf(`      <failure message="%s" type="%s">%s</failure>`, xmlAttr(f.Message), f.Severity, body)+"\n    </testcase>")
		default:
			s.cases = append(s.cases, head+"\n      <system-out>"+body+"</system-out>\n    </testcase>")
		}
	}
	var tests, failures, errors int
	for _, s := range suites {
		if s.tests == 0 {
			s.tests = 1
			s.cases = append(s.cases, fmt.Sprintf(`    <testcase name="%s" classname="%s" time="0"></testcase>`, xmlAttr("no findings in "+in.rootPath(s.name)), xmlAttr(in.rootPath(s.name))))
		}
		tests, failures, errors = tests+s.tests, failures+s.failures, errors+s.errors
	}
	var bw strings.Builder
	bw.WriteString(xml.Header)
	fmt.Fprintf(&bw, `<testsuites name="proxylint" tests="%d" failures="%d" errors="%d" time="0">`+"\n", tests, failures, errors)
	for _, s := range suites {
		fmt.Fprintf(&bw, `  <testsuite name="%s" tests="%d" failures="%d" errors="%d" skipped="0" time="0">`+"\n", xmlAttr(in.rootPath(s.name)), s.tests, s.failures, s.errors)
		for _, c := range s.cases {
			bw.WriteString(c + "\n")
		}
		bw.WriteString("  </testsuite>\n")
	}
	bw.WriteString("</testsuites>\n")
	_, err := io.WriteString(w, bw.String())
	return err
}

// junitDetail is a finding as the text report writes it, without colour or
// quote: position, severity, message and rule, then the related places and
// the fix.
func (in *Input) junitDetail(f rules.Finding, pos string) string {
	var b strings.Builder
	b.WriteString(pos + ": " + f.Severity.String() + ": " + f.Message + " [" + f.Rule + "]")
	for _, r := range f.Related {
		if r.Pos.IsValid() {
			b.WriteString("\n    note: " + in.rootPosText(r.Pos) + ": " + r.Message)
		} else {
			b.WriteString("\n    note: " + r.Message)
		}
	}
	if f.Fix.Message != "" {
		b.WriteString("\n    " + fixLabel(f.Fix) + ": " + f.Fix.Message)
	}
	return b.String()
}
