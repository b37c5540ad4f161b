package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// hostileXMLInput is goldenInput with the characters XML cannot hold and
// markup in a message and a file name.
func hostileXMLInput() *Input {
	in := goldenInput()
	in.Findings = append(in.Findings, rules.Finding{
		Rule: "upstream-no-keepalive", Severity: model.Error, Pos: model.Pos{File: "/work/a]]>\x01b.conf", Line: 3, Col: 2},
		Message: "a \x1b[31m terminal escape, ]]> an end of CDATA, </failure> a tag, \"quotes\" and a\nline break",
	})
	return in
}

func write(t *testing.T, format string, in *Input) []byte {
	t.Helper()
	f, ok := LintFormats.Lookup(format)
	require.True(t, ok, format)
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf, in, false))
	return buf.Bytes()
}

// TestGitLabCodeQualitySchema validates the GitLab report against the
// checks GitLab makes of each issue (testdata/schemas/gitlab-codequality.json),
// and each issue has its own fingerprint: GitLab keeps one issue per
// fingerprint.
func TestGitLabCodeQualitySchema(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "schemas", "gitlab-codequality.json"))
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(f)
	_ = f.Close()
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("gitlab-codequality.json", doc))
	schema, err := c.Compile("gitlab-codequality.json")
	require.NoError(t, err)
	validate := func(b []byte) error {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		return schema.Validate(inst)
	}
	for name, in := range map[string]*Input{"golden": goldenInput(), "hostile": hostileXMLInput(), "clean": {Dir: "/work"}} {
		out := write(t, "gitlab", in)
		assert.NoError(t, validate(out), name)
		var issues []struct{ Fingerprint string }
		require.NoError(t, json.Unmarshal(out, &issues))
		seen := map[string]bool{}
		for _, i := range issues {
			assert.False(t, seen[i.Fingerprint], "%s: fingerprint %s twice", name, i.Fingerprint)
			seen[i.Fingerprint] = true
		}
	}
	assert.Equal(t, "[]\n", string(write(t, "gitlab", &Input{Dir: "/work"})), "a clean run is an empty array")
	// A control: an issue without its fingerprint is refused.
	spoilt := strings.Replace(string(write(t, "gitlab", goldenInput())), `"fingerprint"`, `"fingerprints"`, 1)
	assert.Error(t, validate([]byte(spoilt)))
}

// xmllint is Debian's libxml2-utils' validator; .ci/run installs it and
// sets PROXYLINT_REQUIRE_XMLLINT=1.
func xmllint(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("PROXYLINT_REQUIRE_XMLLINT") == "1" {
			t.Fatal("xmllint is not installed; on Debian: apt-get install libxml2-utils")
		}
		t.Skip("xmllint is not installed; on Debian: apt-get install libxml2-utils")
	}
	return p
}

// validateXML runs xmllint with the schema on doc: nil when it validates,
// else what xmllint said.
func validateXML(t *testing.T, tool, schema string, doc []byte) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.xml")
	require.NoError(t, os.WriteFile(path, doc, 0o644))
	out, err := exec.Command(tool, "--noout", "--schema", filepath.Join("testdata", "schemas", schema), path).CombinedOutput()
	if err != nil {
		return &xmlError{string(out)}
	}
	return nil
}

type xmlError struct{ msg string }

func (e *xmlError) Error() string { return e.msg }

// TestJUnitAndCheckstyleSchemas validates the JUnit and Checkstyle reports
// with xmllint against the schemas their readers hold them to
// (testdata/schemas), hostile input included, with a control each.
func TestJUnitAndCheckstyleSchemas(t *testing.T) {
	tool := xmllint(t)
	for _, c := range []struct{ format, schema, spoil, spoilt string }{
		{"junit", "junit.xsd", `<testcase name=`, `<testcase nom=`},
		{"checkstyle", "checkstyle.xsd", `severity="warning"`, `severity="minor"`},
	} {
		for name, in := range map[string]*Input{"golden": goldenInput(), "hostile": hostileXMLInput(), "clean": {Dir: "/work"}} {
			assert.NoError(t, validateXML(t, tool, c.schema, write(t, c.format, in)), "%s %s", c.format, name)
		}
		spoilt := strings.Replace(string(write(t, c.format, goldenInput())), c.spoil, c.spoilt, 1)
		assert.Error(t, validateXML(t, tool, c.schema, []byte(spoilt)), "%s: the control must fail", c.format)
	}
}

// TestXMLReportsKeepTheText: what a parser reads back from the JUnit and
// Checkstyle reports is the finding's text, markup and line breaks
// included, with what XML cannot hold escaped as the text report escapes
// it.
func TestXMLReportsKeepTheText(t *testing.T) {
	in := hostileXMLInput()
	var cs struct {
		Files []struct {
			Name   string `xml:"name,attr"`
			Errors []struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"file"`
	}
	require.NoError(t, xmlUnmarshal(write(t, "checkstyle", in), &cs))
	last := cs.Files[len(cs.Files)-1]
	assert.Equal(t, `a]]>\x01b.conf`, last.Name)
	assert.Equal(t, "a \\x1b[31m terminal escape, ]]> an end of CDATA, </failure> a tag, \"quotes\" and a\nline break", last.Errors[0].Message)

	var ju struct {
		Suites []struct {
			Cases []struct {
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xmlUnmarshal(write(t, "junit", in), &ju))
	s := ju.Suites[len(ju.Suites)-1]
	require.NotNil(t, s.Cases[0].Failure)
	assert.Equal(t, "a \\x1b[31m terminal escape, ]]> an end of CDATA, </failure> a tag, \"quotes\" and a\nline break", s.Cases[0].Failure.Message)
	assert.True(t, strings.HasPrefix(s.Cases[0].Failure.Text, `a]]>\x01b.conf:3:2: error: a \x1b[31m terminal escape`), s.Cases[0].Failure.Text)
}

func xmlUnmarshal(b []byte, v any) error { return xml.Unmarshal(b, v) }
