package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A target names a release proxylint models: nginx from the oldest release
// still shipped to the newest the tables know; "newest" and the default
// range are always accepted.
func TestParseTargetModelledNginx(t *testing.T) {
	for _, s := range []string{"nginx", "nginx:newest", "nginx:1.18", "nginx:1.28", "nginx:1.29.7", "nginx:" + NewestNginx.String()} {
		_, err := ParseTarget(s)
		assert.NoError(t, err, s)
	}
	for _, s := range []string{"nginx:1.17", "nginx:1.17.10", "nginx:2.0", "nginx:1.99"} {
		_, err := ParseTarget(s)
		require.Error(t, err, s)
		assert.Equal(t, `target "`+s+`": proxylint models nginx 1.18 to `+NewestNginx.String()+`; name a release in that range, or nginx:newest`, err.Error())
	}
}
