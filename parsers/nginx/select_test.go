package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A location that hands its requests to a named location with try_files
// does not proxy them itself: the request path continues in the named
// location, whose settings apply (a timeout set in the calling location
// does not).
func TestSelectLocationFollowsTryFiles(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        listen 8081;
        location /ws/ {
            proxy_read_timeout 15m;
            try_files $uri @app;
        }
        location /static/ { root /srv; }
        location @app {
            proxy_pass http://127.0.0.1:9000;
        }
    }
}
`)
	l := p.Listeners[0]
	got := SelectLocation(l, "/ws/chat", true)
	require.NotNil(t, got)
	assert.Equal(t, "location @app", got.Name)
	assert.Equal(t, "proxy_read_timeout", got.AttemptTimeout.Name())
	assert.True(t, got.AttemptTimeout.Default(), "the calling location's 15m does not apply")

	static := SelectLocation(l, "/static/a.css", true)
	require.NotNil(t, static)
	assert.Equal(t, "location /static/", static.Name, "no try_files: the location itself")
}
