package report

import (
	"bytes"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// latin1Name is a file name in Latin-1, not UTF-8: "café.conf" in a
// directory "ü".
const latin1Name = "/work/\xfc/caf\xe9.conf"

func latin1Input() *Input {
	pos := model.Pos{File: latin1Name, Line: 1, Col: 1}
	return &Input{
		Findings: []rules.Finding{
			{
				Rule: "r", Severity: model.Warning, Pos: pos, Message: "m",
				Related:     []rules.Related{{Pos: pos, Message: "here"}},
				Suppression: &rules.Suppression{Pos: pos, Reason: "why"},
			},
			{Rule: "r", Severity: model.Warning, Pos: model.Pos{File: "/work/ok.conf", Line: 1, Col: 1}, Message: "m"},
		},
		Files: []*model.File{{Path: latin1Name, Source: []byte("x;\n")}, {Path: "/work/ok.conf", Source: []byte("x;\n")}},
		Rules: rules.All(),
		Dir:   "/work",
	}
}

// A file name that is not UTF-8 stays recoverable in the JSON document:
// file shows it as the text report does, file_base64 holds its bytes.
func TestJSONFileNotUTF8(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, JSON(&buf, latin1Input()))
	var doc struct {
		Findings []struct {
			File       string `json:"file"`
			FileBase64 []byte `json:"file_base64"`
			Related    []struct {
				File       string `json:"file"`
				FileBase64 []byte `json:"file_base64"`
			} `json:"related"`
			Suppressed *struct {
				File       string `json:"file"`
				FileBase64 []byte `json:"file_base64"`
			} `json:"suppressed"`
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	require.Len(t, doc.Findings, 2)
	f := doc.Findings[0]
	const rel = "\xfc/caf\xe9.conf"
	assert.Equal(t, `\xfc/caf\xe9.conf`, f.File, "each byte that is not UTF-8 as \\xHH, as text writes it, never U+FFFD")
	assert.Equal(t, []byte(rel), f.FileBase64)
	require.Len(t, f.Related, 1)
	assert.Equal(t, []byte(rel), f.Related[0].FileBase64)
	require.NotNil(t, f.Suppressed)
	assert.Equal(t, []byte(rel), f.Suppressed.FileBase64)
	assert.Equal(t, "ok.conf", doc.Findings[1].File)
	assert.Nil(t, doc.Findings[1].FileBase64)
	assert.NotContains(t, buf.String(), `"file_base64": null`)
	assert.Contains(t, buf.String(), `"file_base64": "/C9jYWbpLmNvbmY="`)
}

// SARIF URIs percent-encode every byte of such a name.
func TestSARIFFileNotUTF8(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, SARIF(&buf, latin1Input()))
	doc := decodeSARIF(t, buf.Bytes())
	uri := doc.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI
	assert.Equal(t, "%FC/caf%E9.conf", uri)
	raw, err := url.PathUnescape(uri)
	require.NoError(t, err)
	assert.Equal(t, "\xfc/caf\xe9.conf", raw)

	in := &Input{Dir: "/work/repo"}
	assert.Equal(t, sarifArtifact{URI: "file:///etc/%FF%0A%23%3F%25.conf"}, in.artifact("/etc/\xff\n#?%.conf"))
	assert.Equal(t, sarifArtifact{URI: "./a:b%FF.conf", URIBaseID: "%SRCROOT%"}, in.artifact("/work/repo/a:b\xff.conf"))
}

// Text names the file with its bytes escaped.
func TestTextFileNotUTF8(t *testing.T) {
	in := latin1Input()
	in.Findings[0].Suppression = nil
	var buf bytes.Buffer
	require.NoError(t, Text(&buf, in, false))
	assert.Contains(t, buf.String(), `\xfc/caf\xe9.conf:1:1: warning: m [r]`)
}
