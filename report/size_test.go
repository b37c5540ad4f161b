package report

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// oneLineInput is a minified configuration of about size bytes on one
// line with a finding, without an end, at every proxy_pass: the shape that
// made each SARIF snippet copy the rest of the line.
func oneLineInput(size int, nonASCII bool) (*Input, int) {
	const file = "/work/min.conf"
	unit := "location /a { proxy_pass http://127.0.0.1:8000; } "
	if nonASCII {
		unit = "location /é→ { proxy_pass http://127.0.0.1:8000; } "
	}
	var b strings.Builder
	b.WriteString("http { server { ")
	var findings []rules.Finding
	col := len("http { server { ") + 1
	for b.Len() < size {
		p := strings.Index(unit, "proxy_pass")
		findings = append(findings, rules.Finding{
			Rule: "upstream-no-keepalive", Severity: model.Warning,
			Pos:     model.Pos{File: file, Line: 1, Col: int32(col + len([]rune(unit[:p])))},
			Message: "proxy_pass to 127.0.0.1:8000 has no upstream block",
		})
		b.WriteString(unit)
		col += len([]rune(unit))
	}
	b.WriteString("} }\n")
	src := b.String()
	return &Input{
		Findings: findings,
		Files:    []*model.File{{Path: file, Source: []byte(src)}},
		Rules:    rules.All(),
		Dir:      "/work",
	}, len(src)
}

// TestSARIFSizeLinear writes the SARIF of a 160 KB one-line configuration
// with 3,000 findings: its size is bounded by the rule descriptions plus a
// constant per finding, whatever the line's length.
func TestSARIFSizeLinear(t *testing.T) {
	for _, nonASCII := range []bool{false, true} {
		t.Run(fmt.Sprintf("nonASCII=%v", nonASCII), func(t *testing.T) {
			in, size := oneLineInput(160<<10, nonASCII)
			require.GreaterOrEqual(t, len(in.Findings), 3000)

			var empty bytes.Buffer
			require.NoError(t, SARIF(&empty, &Input{Rules: rules.All(), Dir: "/work"}))
			var buf bytes.Buffer
			require.NoError(t, SARIF(&buf, in))
			perFinding := (buf.Len() - empty.Len()) / len(in.Findings)
			t.Logf("SARIF: %d bytes for %d bytes of input and %d findings", buf.Len(), size, len(in.Findings))
			// A result is about 800 bytes with its snippet, which is
			// at most maxSnippet code points.
			assert.Less(t, perFinding, 1200, "SARIF is %d bytes for %d bytes of input", buf.Len(), size)

			doc := decodeSARIF(t, buf.Bytes())
			reg := doc.Runs[0].Results[5].Locations[0].PhysicalLocation.Region
			require.NotNil(t, reg.Snippet)
			assert.Equal(t, maxSnippet, len([]rune(reg.Snippet.Text)))
			assert.True(t, strings.HasPrefix(reg.Snippet.Text, "proxy_pass http://127.0.0.1:8000; } location /"), reg.Snippet.Text)
		})
	}
}

// A region with an end gives exactly its text, within the bound.
func TestSARIFSnippetOfRegion(t *testing.T) {
	in := testInput()
	var buf bytes.Buffer
	require.NoError(t, SARIF(&buf, in))
	doc := decodeSARIF(t, buf.Bytes())
	reg := doc.Runs[0].Results[2].Locations[0].PhysicalLocation.Region
	require.NotNil(t, reg.Snippet)
	assert.Equal(t, "proxy_pass http://127.0.0.1:8001;", reg.Snippet.Text)
	reg = doc.Runs[0].Results[1].Locations[0].PhysicalLocation.Region
	require.NotNil(t, reg.Snippet)
	assert.Equal(t, "proxy_pass http://127.0.0.1:8000; # proxylint:ignore upstream-no-keepalive -- sidecar", reg.Snippet.Text)
}

// Fingerprints are what they were before they were computed once per
// line: FNV-1a of rule, file, normalised text and occurrence.
func TestFingerprintFormula(t *testing.T) {
	in, _ := oneLineInput(2<<10, false)
	in.Findings = append(in.Findings, testInput().Findings...)
	in.Files = append(in.Files, testInput().Files...)
	fps := Fingerprints(in)
	seen := map[string]int{}
	for i, f := range in.Findings {
		text, _ := in.Line(f.Pos.File, int(f.Pos.Line))
		key := f.Rule + "\x00" + in.RelPath(f.Pos.File) + "\x00" + strings.Join(strings.Fields(stripComment(text)), " ")
		h := fnv.New128a()
		_, _ = h.Write([]byte(key + "\x00" + strconv.Itoa(seen[key])))
		seen[key]++
		assert.Equal(t, hex.EncodeToString(h.Sum(nil)), fps[i], "finding %d", i)
	}
}
