package nginx

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

func releaseUses(t *testing.T, files map[string]string, from, to string) []string {
	t.Helper()
	dir := writeFiles(t, files)
	f, err := model.ParseTarget(from)
	require.NoError(t, err)
	tt, err := model.ParseTarget(to)
	require.NoError(t, err)
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	var got []string
	for _, u := range cfg.ReleaseUses(f, tt) {
		id := "tables"
		if u.Change != nil {
			id = u.Change.ID
		}
		s := fmt.Sprintf("%s:%d:%d %s [%s] %v→%v", filepath.Base(u.Pos.File), u.Pos.Line, u.Pos.Col, u.Directive, id, u.FromAccepts, u.ToAccepts)
		if !u.Since.IsZero() {
			s += " since " + u.Since.String()
		}
		if !u.Until.IsZero() {
			s += " until " + u.Until.String()
		}
		if u.What != "" {
			s += ": " + u.What
		}
		got = append(got, s)
	}
	return got
}

const releaseDiffConf = `events {}
http {
    add_header X-Frame-Options DENY;
    upstream app {
        server 127.0.0.1:8000;
        keepalive 16 local;
    }
    server {
        listen 443 ssl http2;
        ssl on;
        http2_push_preload on;
        location / {
            proxy_pass http://app;
            proxy_http_version 2;
            add_header Cache-Control no-store;
        }
        location /other/ {
            include headers.inc;
            proxy_pass http://app;
        }
        location /kept/ {
            proxy_pass http://app;
        }
    }
    server {
        listen 80;
        http2 on;
        add_header_inherit merge;
        location / {
            add_header X-A b;
        }
    }
}
`

// TestReleaseUsesUpgrade: from 1.24 to 1.30 "ssl" goes, "http2",
// add_header_inherit, "keepalive ... local" and "proxy_http_version 2"
// come, "listen ... http2" and server push are deprecated, and the blocks
// whose add_header drops the outer ones could keep them with
// add_header_inherit; the server that sets add_header_inherit is not one.
func TestReleaseUsesUpgrade(t *testing.T) {
	got := releaseUses(t, map[string]string{"nginx.conf": releaseDiffConf, "headers.inc": "add_header X-B c;\n"}, "nginx:1.24", "nginx:1.30")
	assert.Equal(t, []string{
		"nginx.conf:6:9 keepalive 16 [nginx-keepalive-local] false→true since 1.29.7",
		"nginx.conf:9:24 listen ... http2 [nginx-listen-http2] true→true",
		"nginx.conf:10:9 ssl on [nginx-ssl-directive] true→false until 1.25.1",
		"nginx.conf:11:9 http2_push_preload [nginx-http2-push] true→true",
		"nginx.conf:14:13 proxy_http_version 2 [nginx-proxy-http2] false→true since 1.29.4",
		"nginx.conf:15:13 add_header [nginx-add-header-inherit] true→true: this add_header drops those of the outer level (line 3)",
		"nginx.conf:27:9 http2 on [nginx-http2-directive] false→true since 1.25.1",
		"nginx.conf:28:9 add_header_inherit merge [nginx-add-header-inherit] false→true since 1.29.3",
		// A file's uses come after those of the file it is included from.
		"headers.inc:1:1 add_header [nginx-add-header-inherit] true→true: this add_header drops those of the outer level (line 3)",
	}, got)
}

// TestReleaseUsesDowngrade: the other way round, the same directives,
// with what each release accepts swapped.
func TestReleaseUsesDowngrade(t *testing.T) {
	got := releaseUses(t, map[string]string{"nginx.conf": releaseDiffConf, "headers.inc": "add_header X-B c;\n"}, "nginx:1.30", "nginx:1.24")
	assert.Contains(t, got, "nginx.conf:10:9 ssl on [nginx-ssl-directive] false→true until 1.25.1")
	assert.Contains(t, got, "nginx.conf:27:9 http2 on [nginx-http2-directive] true→false since 1.25.1")
}

// TestReleaseUsesNone: between two releases that read it alike, nothing.
func TestReleaseUsesNone(t *testing.T) {
	got := releaseUses(t, map[string]string{"nginx.conf": releaseDiffConf, "headers.inc": "add_header X-B c;\n"}, "nginx:1.30", "nginx:1.30.2")
	assert.Empty(t, got)
}
