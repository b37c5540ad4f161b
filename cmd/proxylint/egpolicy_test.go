package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A timeout an Envoy Gateway policy drops is shown at both places: the
// lost timeouts.request line, and the policy's reference to the route
// that causes the loss, in text, JSON and SARIF.
func TestGatewayPolicyDropsTimeoutBothPlaces(t *testing.T) {
	const file = "fixtures/gateway-policy-drops-timeout/bad.yaml"
	args := []string{"--no-color", "--target", "envoy-gateway:1.1.2"}

	code, out, errOut := runCLI(t, "../..", append(args, file)...)
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, file+":18:16: error: BackendTrafficPolicy conn-limit targets HTTPRoute reports")
	assert.Contains(t, out, "    note: "+file+":26:5: BackendTrafficPolicy conn-limit attaches to the route here and makes it lose timeouts.request\n")

	_, out, _ = runCLIHere(append(args, "--format", "json", file)...)
	var doc struct {
		Findings []struct {
			Rule, File   string
			Line, Column int
			Related      []struct {
				File         string
				Line, Column int
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Findings, 1)
	f := doc.Findings[0]
	assert.Equal(t, []any{"gateway-policy-drops-timeout", file, 18, 16}, []any{f.Rule, f.File, f.Line, f.Column})
	require.Len(t, f.Related, 1)
	assert.Equal(t, []any{file, 26, 5}, []any{f.Related[0].File, f.Related[0].Line, f.Related[0].Column})

	_, out, _ = runCLIHere(append(args, "--format", "sarif", file)...)
	type region struct{ StartLine, StartColumn int }
	type location struct {
		PhysicalLocation struct {
			ArtifactLocation struct{ URI string }
			Region           region
		}
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID           string
				Locations        []location
				RelatedLocations []location
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sarif))
	require.Len(t, sarif.Runs, 1)
	require.Len(t, sarif.Runs[0].Results, 1)
	res := sarif.Runs[0].Results[0]
	require.Len(t, res.Locations, 1)
	require.Len(t, res.RelatedLocations, 1)
	for _, c := range []struct {
		loc  location
		line int
		col  int
	}{{res.Locations[0], 18, 16}, {res.RelatedLocations[0], 26, 5}} {
		assert.True(t, strings.HasSuffix(c.loc.PhysicalLocation.ArtifactLocation.URI, file), c.loc.PhysicalLocation.ArtifactLocation.URI)
		assert.Equal(t, region{c.line, c.col}, c.loc.PhysicalLocation.Region)
	}
}
