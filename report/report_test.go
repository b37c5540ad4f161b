package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

const testSource = `events {}
http {
    server {
        location / {
            proxy_pass http://127.0.0.1:8000; # proxylint:ignore upstream-no-keepalive -- sidecar
        }
        location /b/ {
            proxy_pass http://127.0.0.1:8001;
        }
    }
}
`

// testInput is a run over /work/nginx.conf with a suppressed finding, an
// unsuppressed one with a related place in a file and one on the command
// line, and a file that could not be read.
func testInput() *Input {
	const file = "/work/nginx.conf"
	diag := model.Diagnostic{Code: "load-error", Severity: model.Error, Pos: model.Pos{File: "/work/absent.conf"}, Message: "cannot read absent.conf: no such file or directory", Fatal: true}
	return &Input{
		Findings: []rules.Finding{
			{Rule: "load-error", Severity: model.Error, Pos: diag.Pos, Message: diag.Message, Fatal: true, Unread: true},
			{
				Rule: "upstream-no-keepalive", Severity: model.Warning, Pos: model.Pos{File: file, Line: 5, Col: 13},
				Message:     "proxy_pass to 127.0.0.1:8000 has no upstream block, so nginx opens a new connection for every request. More.",
				Fix:         rules.Advice("declare an upstream block"),
				Suppression: &rules.Suppression{Pos: model.Pos{File: file, Line: 5, Col: 47}, Reason: "sidecar"},
			},
			{
				Rule: "upstream-no-keepalive", Severity: model.Warning, Pos: model.Pos{File: file, Line: 8, Col: 13},
				End:     model.Pos{File: file, Line: 8, Col: 46},
				Message: "proxy_pass to 127.0.0.1:8001 has no upstream block, so nginx opens a new connection for every request",
				Related: []rules.Related{
					{Pos: model.Pos{File: file, Line: 7, Col: 9}, Message: "in this location"},
					{Message: "--behind aws-alb waits 60s"},
				},
			},
		},
		Files:       []*model.File{{Path: file, Source: []byte(testSource)}},
		Rules:       rules.All(),
		Version:     "0.1.0",
		Dir:         "/work",
		Diagnostics: []model.Diagnostic{diag},
	}
}

// sarifDoc is the part of a SARIF log the tests read.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		ColumnKind string `json:"columnKind"`
		Tool       struct {
			Driver struct {
				Name, Version, SemanticVersion, InformationURI string
				Rules                                          []struct {
					ID, Name, HelpURI                 string
					ShortDescription, FullDescription struct{ Text string }
					Help                              struct{ Text, Markdown string }
					DefaultConfiguration              struct{ Level string }
					Properties                        struct{ Tags []string }
				}
			}
		}
		Invocations []struct {
			ExecutionSuccessful        bool
			ToolExecutionNotifications []struct {
				Level          string
				Message        struct{ Text string }
				AssociatedRule struct{ ID string }
			}
		}
		Results []struct {
			RuleID    string
			RuleIndex *int
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation sarifPhysical
			}
			RelatedLocations []struct {
				ID               int
				PhysicalLocation *sarifPhysical
				Message          struct{ Text string }
			}
			PartialFingerprints map[string]string
			Suppressions        []struct{ Kind, Status, Justification string }
		}
	}
}

func decodeSARIF(t *testing.T, b []byte) sarifDoc {
	t.Helper()
	var doc sarifDoc
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Runs, 1)
	return doc
}

func TestSARIF(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, SARIF(&buf, testInput()))
	doc := decodeSARIF(t, buf.Bytes())
	assert.Equal(t, "2.1.0", doc.Version)
	run := doc.Runs[0]
	assert.Equal(t, "unicodeCodePoints", run.ColumnKind)

	d := run.Tool.Driver
	assert.Equal(t, "proxylint", d.Name)
	assert.Equal(t, "0.1.0", d.Version)
	assert.Equal(t, "0.1.0", d.SemanticVersion)
	require.Len(t, d.Rules, len(rules.All()), "every registered rule")
	for i, r := range rules.All() {
		sr := d.Rules[i]
		assert.Equal(t, r.ID, sr.ID)
		assert.NotEmpty(t, sr.Name)
		assert.NotContains(t, sr.Name, "-")
		assert.NotEmpty(t, sr.ShortDescription.Text)
		assert.NotEmpty(t, sr.FullDescription.Text)
		assert.Equal(t, r.Doc(), sr.Help.Text)
		assert.Equal(t, r.Doc(), sr.Help.Markdown)
		assert.Equal(t, "https://github.com/proxylint/proxylint/blob/main/rules/docs/"+r.ID+".md", sr.HelpURI)
		assert.Equal(t, r.Severity.String(), sr.DefaultConfiguration.Level)
		assert.Equal(t, r.Tags, sr.Properties.Tags)
	}

	require.Len(t, run.Invocations, 1)
	inv := run.Invocations[0]
	assert.False(t, inv.ExecutionSuccessful, "a file could not be read")
	require.Len(t, inv.ToolExecutionNotifications, 1)
	assert.Equal(t, "error", inv.ToolExecutionNotifications[0].Level)
	assert.Equal(t, "load-error", inv.ToolExecutionNotifications[0].AssociatedRule.ID)
	assert.Equal(t, "cannot read absent.conf: no such file or directory.", inv.ToolExecutionNotifications[0].Message.Text)

	require.Len(t, run.Results, 3)
	for _, r := range run.Results {
		require.NotNil(t, r.RuleIndex)
		assert.Equal(t, r.RuleID, d.Rules[*r.RuleIndex].ID)
		require.Len(t, r.Locations, 1)
		loc := r.Locations[0].PhysicalLocation
		assert.Equal(t, "%SRCROOT%", loc.ArtifactLocation.URIBaseID)
		assert.False(t, strings.HasPrefix(loc.ArtifactLocation.URI, "/"), "relative URI")
		require.NotNil(t, loc.Region)
		assert.GreaterOrEqual(t, loc.Region.StartLine, 1)
		assert.Len(t, r.PartialFingerprints["proxylint/v1"], 32)
	}

	whole := run.Results[0]
	assert.Equal(t, "absent.conf", whole.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	assert.Equal(t, 1, whole.Locations[0].PhysicalLocation.Region.StartLine, "a whole-file finding starts at line 1")
	assert.Zero(t, whole.Locations[0].PhysicalLocation.Region.StartColumn)

	supp := run.Results[1]
	assert.Equal(t, "nginx.conf", supp.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	assert.Equal(t, "proxy_pass to 127.0.0.1:8000 has no upstream block, so nginx opens a new connection for every request. More. Fix: declare an upstream block.", supp.Message.Text)
	require.Len(t, supp.Suppressions, 1)
	assert.Equal(t, "inSource", supp.Suppressions[0].Kind)
	assert.Equal(t, "sidecar", supp.Suppressions[0].Justification)

	open := run.Results[2]
	assert.Empty(t, open.Suppressions)
	assert.Equal(t, "warning", open.Level)
	assert.True(t, strings.HasSuffix(open.Message.Text, "every request."), "messages end with a full stop")
	r := open.Locations[0].PhysicalLocation.Region
	assert.Equal(t, sarifRegion{StartLine: 8, StartColumn: 13, EndLine: 8, EndColumn: 46, Snippet: &sarifText{Text: "proxy_pass http://127.0.0.1:8001;"}}, *r)
	assert.Equal(t, "proxy_pass http://127.0.0.1:8000; # proxylint:ignore upstream-no-keepalive -- sidecar", supp.Locations[0].PhysicalLocation.Region.Snippet.Text)
	require.Len(t, open.RelatedLocations, 2)
	assert.Equal(t, 1, open.RelatedLocations[0].ID)
	assert.Equal(t, 7, open.RelatedLocations[0].PhysicalLocation.Region.StartLine)
	assert.Equal(t, "In this location.", capitalise(open.RelatedLocations[0].Message.Text))
	assert.Nil(t, open.RelatedLocations[1].PhysicalLocation, "a place on the command line has no file")
	assert.Equal(t, "--behind aws-alb waits 60s.", open.RelatedLocations[1].Message.Text)
}

func TestSARIFCleanRun(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, SARIF(&buf, &Input{Rules: rules.All(), Version: "0.1.0"}))
	assert.Contains(t, buf.String(), `"results": []`)
	doc := decodeSARIF(t, buf.Bytes())
	assert.True(t, doc.Runs[0].Invocations[0].ExecutionSuccessful)
	assert.Empty(t, doc.Runs[0].Invocations[0].ToolExecutionNotifications)
}

func TestSARIFPathOutsideTheWorkingDirectory(t *testing.T) {
	in := &Input{Dir: "/work/repo"}
	assert.Equal(t, sarifArtifact{URI: "file:///etc/nginx/nginx.conf"}, in.artifact("/etc/nginx/nginx.conf"))
	assert.Equal(t, sarifArtifact{URI: "conf.d/a%20b.conf", URIBaseID: "%SRCROOT%"}, in.artifact("/work/repo/conf.d/a b.conf"))
	assert.Equal(t, sarifArtifact{URI: "sites-enabled/default", URIBaseID: "%SRCROOT%"}, in.artifact("sites-enabled/default"))
}

func TestSemver(t *testing.T) {
	assert.Equal(t, "0.1.0", semver("0.1.0"))
	assert.Equal(t, "1.2.3-rc.1+abc", semver("1.2.3-rc.1+abc"))
	assert.Empty(t, semver("0.1"))
	assert.Empty(t, semver("dev"))
}

func TestFirstParagraph(t *testing.T) {
	doc := "# rule-id: title\n\nFirst line\nsecond line.\n\n## Why\n\nMore.\n"
	assert.Equal(t, "First line second line.", firstParagraph(doc, "x"))
	assert.Equal(t, "Fallback", firstParagraph("# only a title\n", "fallback"))
}

func TestGitHub(t *testing.T) {
	in := testInput()
	in.Findings = append(in.Findings, rules.Finding{
		Rule: "unused-suppression", Severity: model.Note,
		Pos:     model.Pos{File: "/work/dir,with:odd%chars/x.conf", Line: 3, Col: 1},
		Message: "100% odd\r\nmessage",
	})
	var buf bytes.Buffer
	require.NoError(t, GitHub(&buf, in))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 4, buf.String())
	assert.Equal(t, "::error file=absent.conf,title=load-error::cannot read absent.conf: no such file or directory", lines[0])
	assert.Equal(t, "::warning file=nginx.conf,line=8,col=13,endLine=8,endColumn=46,title=upstream-no-keepalive::"+
		"proxy_pass to 127.0.0.1:8001 has no upstream block, so nginx opens a new connection for every request"+
		"%0Anginx.conf:7:9: in this location%0A--behind aws-alb waits 60s", lines[1])
	// A line break in a message is text from a file, escaped as the
	// text report escapes it: only the runner's own breaks are %0A.
	assert.Equal(t, `::notice file=dir%2Cwith%3Aodd%25chars/x.conf,line=3,col=1,title=unused-suppression::100%25 odd\r\nmessage`, lines[2])
	assert.Equal(t, "1 error, 1 warning, 1 note (1 suppressed)", lines[3])
}

func TestBaseline(t *testing.T) {
	in := testInput()
	var buf bytes.Buffer
	n, err := WriteBaseline(&buf, in)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "neither the suppressed finding nor the file that could not be read")
	assert.Contains(t, buf.String(), `"file": "nginx.conf"`)

	b, err := ReadBaseline(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 1, b.Len())

	// Applied as a run applies it: the pipeline's fingerprint and
	// baseline steps.
	in = testInput()
	all := append([]string(nil), Fingerprints(in)...)
	o := rules.RunPipeline(nil, nil, testInput().Findings, rules.Steps{
		Fingerprint: func(fs []rules.Finding) []string { return FingerprintsOf(in.Files, in.Dir, fs) },
		Known:       b.Knows,
	})
	in.Findings, in.Known = o.Findings, o.Known
	assert.Equal(t, 1, in.Known)
	require.Len(t, in.Findings, 2)
	assert.Equal(t, "load-error", in.Findings[0].Rule)
	assert.NotNil(t, in.Findings[1].Suppression)
	assert.Equal(t, []string{all[0], all[1]}, Fingerprints(in), "fingerprints are those of the full run")

	var text bytes.Buffer
	require.NoError(t, Text(&text, in, false))
	assert.Contains(t, text.String(), "1 error (1 suppressed, 1 known from the baseline)")

	_, err = ReadBaseline(strings.NewReader(`{"version": 7, "findings": []}`))
	assert.ErrorContains(t, err, "baseline version 7 is not supported")
	_, err = ReadBaseline(strings.NewReader(`findings:`))
	assert.ErrorContains(t, err, "not a proxylint baseline")
}

func TestFingerprintsIgnoreLineNumbers(t *testing.T) {
	in := testInput()
	before := append([]string(nil), Fingerprints(in)...)

	shifted := testInput()
	shifted.Files[0].Source = []byte("# a new comment\n\n" + testSource)
	for i := range shifted.Findings {
		if shifted.Findings[i].Pos.Line > 0 {
			shifted.Findings[i].Pos.Line += 2
		}
	}
	assert.Equal(t, before, Fingerprints(shifted))

	// A comment added to the flagged line keeps the identity.
	commented := testInput()
	commented.Files[0].Source = []byte(strings.Replace(testSource, "8001;", "8001;   # TODO: pool", 1))
	assert.Equal(t, before, Fingerprints(commented))

	// Two findings on identical lines stay apart by their order.
	twice := testInput()
	twice.Files[0].Source = []byte(strings.Replace(strings.Replace(testSource, "8001", "8000", 1), "# proxylint:ignore upstream-no-keepalive -- sidecar", "", 1))
	fps := Fingerprints(twice)
	assert.NotEqual(t, fps[1], fps[2])
	text1, _ := twice.Line("/work/nginx.conf", 5)
	text2, _ := twice.Line("/work/nginx.conf", 8)
	assert.Equal(t, strings.TrimSpace(text1), strings.TrimSpace(text2))
}

func TestStripComment(t *testing.T) {
	for in, want := range map[string]string{
		`proxy_pass http://a; # note`: `proxy_pass http://a; `,
		`# whole line`:                ``,
		`return 200 "a # b"; # c`:     `return 200 "a # b"; `,
		`add_header X 'it''s#1';`:     `add_header X 'it''s#1';`,
		`rewrite ^/a#b /c;`:           `rewrite ^/a#b /c;`,
		`  key: "value \" # x" # c`:   `  key: "value \" # x" `,
		"timeout: 5s	# tabbed":        "timeout: 5s	",
	} {
		assert.Equal(t, want, stripComment(in), in)
	}
}
