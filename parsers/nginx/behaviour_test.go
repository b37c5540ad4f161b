package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRequestMethodGuards(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        if ($request_method !~ ^(GET|HEAD|POST|PUT|DELETE|OPTIONS)$) {
            return 405;
        }
        location /read/ {
            if ($request_method != GET) { return 405; }
            proxy_pass http://127.0.0.1:1;
        }
        location /cors/ {
            if ($request_method = 'OPTIONS') {
                add_header Access-Control-Allow-Origin '*';
                return 204;
            }
            proxy_pass http://127.0.0.1:1;
            location /cors/inner/ {
                proxy_pass http://127.0.0.1:1;
            }
        }
        location /split/ {
            proxy_pass http://127.0.0.1:1;
            if ($request_method ~* ^post$) {
                proxy_pass http://127.0.0.1:2;
            }
        }
        location /limited/ {
            proxy_pass http://127.0.0.1:1;
            limit_except GET POST { deny all; }
            if ($request_method = POST) { return 403; }
        }
        location /tagged/ {
            if ($request_method = POST) { set $x 1; }
            if ($request_method ~ "(") { return 405; }
            proxy_pass http://127.0.0.1:1;
        }
    }
}
`)
	read := route(t, p, "location /read/")
	assert.False(t, read.Methods.Any)
	assert.Equal(t, []string{"GET"}, read.Methods.Allowed)
	assert.Equal(t, "if ($request_method != GET)", read.Methods.Source())
	assert.Equal(t, 8, int(read.Methods.Pos().Line))

	cors := route(t, p, "location /cors/")
	assert.False(t, cors.Methods.Any, "the server's guard lets only known methods through")
	assert.Equal(t, []string{"GET", "HEAD", "POST", "PUT", "DELETE"}, cors.Methods.Allowed, "OPTIONS is answered by the location")
	inner := route(t, p, "location /cors/inner/")
	assert.Equal(t, []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"}, inner.Methods.Allowed,
		"an enclosing location's if does not run for a nested one; the server's does")

	split := route(t, p, "if ($request_method ~* ^post$)")
	assert.Equal(t, []string{"POST"}, split.Methods.Allowed, "an if that proxies carries what its condition lets in")

	limited := route(t, p, "location /limited/")
	assert.Equal(t, []string{"GET", "HEAD"}, limited.Methods.Allowed)

	tagged := route(t, p, "location /tagged/")
	assert.Equal(t, []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"}, tagged.Methods.Allowed,
		"an if that does not answer, or whose expression Go cannot read, narrows nothing")
}

func TestRequestMethodGuardRefusingSome(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        location /api/ {
            if ($request_method ~ ^(POST|PUT|PATCH|DELETE)$) { return 405; }
            proxy_pass http://127.0.0.1:1;
        }
    }
}
`)
	api := route(t, p, "location /api/")
	assert.True(t, api.Methods.Any, "an unknown method still passes")
	assert.Equal(t, []string{"POST", "PUT", "DELETE", "PATCH"}, api.Methods.Except)
	assert.True(t, api.Methods.Allows("GET"))
	assert.False(t, api.Methods.Allows("PUT"))
}

func TestStreamLocations(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    server {
        location /events/ {
            proxy_pass http://127.0.0.1:1;
            proxy_buffering off;
            add_header X-Accel-Buffering no;
        }
        location /sse/ {
            proxy_buffering off;
            proxy_set_header Accept "text/event-stream";
            location /sse/inner/ {
                proxy_pass http://127.0.0.1:1;
            }
        }
        location /hinted/ {
            proxy_pass http://127.0.0.1:1;
            add_header Content-Type text/event-stream;
        }
        location /download/ {
            proxy_pass http://127.0.0.1:1;
            proxy_buffering off;
        }
        location /rpc/ {
            grpc_pass grpc://127.0.0.1:1;
        }
    }
}
`)
	want := map[string]int{"location /events/": 7, "location /sse/inner/": 11, "location /rpc/": 25}
	for _, r := range p.Routes() {
		line, stream := want[r.Name]
		if r.Forward == nil {
			continue
		}
		if r.Stream.Value != stream || (stream && int(r.Stream.Pos().Line) != line) {
			t.Errorf("%s: Stream %v at line %d (%s), want %v at line %d", r.Name, r.Stream.Value, r.Stream.Pos().Line, r.Stream.Name(), stream, line)
		}
	}
}

func TestPooledConnectionGivesTryBack(t *testing.T) {
	p := build(t, "nginx", `events {}
http {
    upstream one {
        server 10.0.0.1:8080;
        keepalive 8;
    }
    server {
        location /pooled/ {
            proxy_pass http://one;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream_tries 1;
        }
        location /http10/ {
            proxy_pass http://one;
        }
        location /no-error/ {
            proxy_pass http://one;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream timeout http_502;
        }
        location /fcgi/ {
            fastcgi_pass one;
        }
        location /rpc/ {
            grpc_pass grpc://one;
        }
    }
}
`)
	pooled := route(t, p, "location /pooled/")
	assert.Equal(t, 2, pooled.MaxAttempts.Value, "the try given back comes on top of tries 1")
	assert.Equal(t, "keepalive", pooled.MaxAttempts.Name())
	assert.Equal(t, 5, int(pooled.MaxAttempts.Pos().Line))
	if assert.Len(t, pooled.Reexecutes, 1) {
		x := pooled.Reexecutes[0]
		assert.Equal(t, "error", x.Condition)
		assert.True(t, x.SameServer)
		assert.False(t, x.Methods.Allows("POST"))
		assert.True(t, x.Methods.Allows("PUT"))
	}
	for _, name := range []string{"location /http10/", "location /no-error/", "location /fcgi/"} {
		r := route(t, p, name)
		assert.Equal(t, 1, r.MaxAttempts.Value, name)
		assert.Empty(t, r.Reexecutes, name)
	}
	rpc := route(t, p, "location /rpc/")
	assert.Equal(t, 2, rpc.MaxAttempts.Value, "gRPC connections are HTTP/2 and return to the pool")
}
