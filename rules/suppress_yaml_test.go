package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// TestSuppressionsInYAML: the Envoy loader hands YAML comments over as
// model.File.Comments, with positions; suppressions read them as they
// read nginx comments.
func TestSuppressionsInYAML(t *testing.T) {
	const file = "envoy.yaml"
	src := `static_resources:
  listeners:
  - name: edge
    # proxylint:ignore envoy-h1-unsafe-drain -- clients are HTTP/2 only
    max_connection_duration: 60s
  clusters:
  - name: app
    connect_timeout: 5s  # proxylint:ignore upstream-no-keepalive -- example
    idle_timeout: 3600s
`
	m := &model.Model{Files: []*model.File{{
		Path:   file,
		Source: []byte(src),
		Comments: []model.Comment{
			{Pos: model.Pos{File: file, Line: 4, Col: 5}, Text: " proxylint:ignore envoy-h1-unsafe-drain -- clients are HTTP/2 only"},
			{Pos: model.Pos{File: file, Line: 8, Col: 26}, Text: " proxylint:ignore upstream-no-keepalive -- example"},
		},
	}}}
	findings := []Finding{
		{Rule: "envoy-h1-unsafe-drain", Severity: model.Warning, Pos: model.Pos{File: file, Line: 5, Col: 5}},
		{Rule: "upstream-no-keepalive", Severity: model.Warning, Pos: model.Pos{File: file, Line: 9, Col: 5}},
	}
	if _, ok := Lookup("envoy-h1-unsafe-drain"); !ok {
		// The rule is not registered yet: check the line logic with a
		// registered one.
		findings[0].Rule = "upstream-no-keepalive"
		m.Files[0].Comments[0].Text = " proxylint:ignore upstream-no-keepalive -- clients are HTTP/2 only"
	}
	out := applySuppressions(m, &Options{}, findings)
	require.Len(t, out, 3)
	require.NotNil(t, out[0].Suppression, "the comment on the line above covers the key")
	assert.Equal(t, "clients are HTTP/2 only", out[0].Suppression.Reason)
	assert.Equal(t, 4, int(out[0].Suppression.Pos.Line))
	assert.Nil(t, out[1].Suppression, "a trailing comment covers its own line only")
	assert.Equal(t, "unused-suppression", out[2].Rule)
	assert.Equal(t, 8, int(out[2].Pos.Line))
}
