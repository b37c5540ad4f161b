package rules_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// Other linters' names for a check are accepted wherever an ID is, and
// never collide with an ID.
func TestAliasesNameOneRule(t *testing.T) {
	seen := map[string]string{}
	for _, r := range rules.All() {
		seen[r.ID] = r.ID
	}
	for _, r := range rules.All() {
		for _, a := range r.Aliases {
			if other, ok := seen[a]; ok {
				t.Errorf("alias %q of %s is also %s", a, r.ID, other)
			}
			seen[a] = r.ID
			got, ok := rules.Lookup(a)
			if !ok || got != r {
				t.Errorf("Lookup(%q) = %v, %v; want %s", a, got, ok, r.ID)
			}
			if rules.Canonical(a) != r.ID {
				t.Errorf("Canonical(%q) = %q, want %q", a, rules.Canonical(a), r.ID)
			}
		}
	}
	for alias, id := range map[string]string{
		"add_header_redefinition":    "set-header-drops-inherited",
		"missing_resolver":           "upstream-dns-stale",
		"stale_dns_cache":            "upstream-dns-stale",
		"proxy-pass-domain":          "upstream-dns-stale",
		"upstream-server-no-resolve": "upstream-dns-stale",
	} {
		assert.Equal(t, id, rules.Canonical(alias), alias)
	}
	assert.Equal(t, "no-such-rule", rules.Canonical("no-such-rule"))
}

const dropsSecurityHeader = `events {}
http {
    add_header X-Frame-Options DENY;
    server {
        listen 80;
        location / {
            %s
            add_header Cache-Control no-store;
            return 200;
        }
    }
}
`

func findingsOf(fs []rules.Finding, rule string) []rules.Finding {
	var out []rules.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// gixy's name in a suppression suppresses the finding (which keeps its
// ID), and is not reported unused.
func TestSuppressionByAlias(t *testing.T) {
	fs := lintFiles(t, nil, "nginx.conf", sprintf(dropsSecurityHeader, "# proxylint:ignore add_header_redefinition -- the cache needs its own"))
	got := findingsOf(fs, "set-header-drops-inherited")
	require.Len(t, got, 1)
	require.NotNil(t, got[0].Suppression)
	assert.Equal(t, "the cache needs its own", got[0].Suppression.Reason)
	assert.Empty(t, findingsOf(fs, "unused-suppression"))
	assert.Empty(t, findingsOf(fs, "invalid-suppression"))

	// With nothing to suppress, the alias is reported unused, by the name
	// it was written with.
	fs = lintFiles(t, nil, "nginx.conf", "events {}\nhttp {\n    # proxylint:ignore-file add_header_redefinition\n}\n")
	unused := findingsOf(fs, "unused-suppression")
	require.Len(t, unused, 1)
	assert.Contains(t, unused[0].Message, "add_header_redefinition suppresses nothing")
}

// Disable, Enable and Severity take aliases as they take IDs.
func TestOptionsByAlias(t *testing.T) {
	src := sprintf(dropsSecurityHeader, "")
	assert.Len(t, findingsOf(lintFiles(t, nil, "nginx.conf", src), "set-header-drops-inherited"), 1)
	off := &rules.Options{Disable: map[string]bool{"add_header_redefinition": true}}
	assert.Empty(t, findingsOf(lintFiles(t, off, "nginx.conf", src), "set-header-drops-inherited"))
	sev := &rules.Options{Severity: map[string]model.Severity{"add_header_redefinition": model.Error}}
	got := findingsOf(lintFiles(t, sev, "nginx.conf", src), "set-header-drops-inherited")
	require.Len(t, got, 1)
	assert.Equal(t, model.Error, got[0].Severity)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
