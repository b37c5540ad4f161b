// Package gen writes the configurations proxylint's benchmarks run on:
// nginx trees of realistic shape and any size, a small one-file nginx.conf,
// and Envoy bootstraps of growing size. Output depends only on the
// arguments, so every run of a benchmark reads the same bytes.
package gen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// NginxTree is the layout of a generated nginx configuration. The shape
// follows a reverse proxy in production: a main file, a file of upstream
// blocks, shared snippets included by most locations, and server blocks
// spread over sites/part-NNNN.conf.
type NginxTree struct {
	// Servers is the number of server blocks; there are Servers/2 (at
	// least 2) upstream blocks.
	Servers int
	// Locations per server, 3 to 10 (default 7).
	Locations int
	// UpstreamServers per upstream block (default 4).
	UpstreamServers int
	// ServersPerFile in each sites/*.conf (default 50).
	ServersPerFile int
	// Seed of the choices (timeouts, balancers, which locations).
	Seed uint64
}

func (t NginxTree) withDefaults() NginxTree {
	if t.Locations == 0 {
		t.Locations = 7
	}
	t.Locations = min(max(t.Locations, 3), 10)
	if t.UpstreamServers <= 0 {
		t.UpstreamServers = 4
	}
	if t.ServersPerFile <= 0 {
		t.ServersPerFile = 50
	}
	if t.Seed == 0 {
		t.Seed = 1
	}
	return t
}

// Write writes the tree into dir (created if needed) and returns the path
// of its nginx.conf. Include paths are absolute, so nginx, proxylint and
// other linters resolve them alike. Relative paths in the main file (logs,
// temporary directories, pid) are relative to nginx's -p prefix.
func (t NginxTree) Write(dir string) (string, error) {
	t = t.withDefaults()
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, sub := range []string{"conf.d", "snippets", "sites"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return "", err
		}
	}
	old, _ := filepath.Glob(filepath.Join(dir, "sites", "*.conf"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return "", err
		}
	}
	files := t.Files(dir)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "nginx.conf"), nil
}

// Files returns the tree's files by path relative to dir, with include
// paths pointing into dir.
func (t NginxTree) Files(dir string) map[string]string {
	t = t.withDefaults()
	rnd := rand.New(rand.NewPCG(t.Seed, 0x9e3779b97f4a7c15))
	files := map[string]string{}

	nups := max(2, t.Servers/2)
	ups := make([]string, nups)
	var b strings.Builder
	fmt.Fprintf(&b, "# %d upstream blocks\n", nups)
	for i := range ups {
		ups[i] = fmt.Sprintf("up_app_%05d", i)
		b.WriteString("\n")
		writeUpstream(&b, ups[i], i, t.UpstreamServers, rnd)
	}
	files[filepath.Join("conf.d", "upstreams.conf")] = b.String()

	snippet := filepath.Join(dir, "snippets", "proxy_params.conf")
	files[filepath.Join("snippets", "proxy_params.conf")] = proxyParams
	files[filepath.Join("snippets", "mime.types")] = mimeTypes

	for start, part := 0, 0; start < t.Servers; start, part = start+t.ServersPerFile, part+1 {
		b.Reset()
		for i := start; i < min(t.Servers, start+t.ServersPerFile); i++ {
			if i > start {
				b.WriteString("\n")
			}
			writeServer(&b, i, ups, snippet, t.Locations, rnd)
		}
		files[filepath.Join("sites", fmt.Sprintf("part-%04d.conf", part))] = b.String()
	}

	files["nginx.conf"] = fmt.Sprintf(mainConf, t.Servers, t.Locations, t.UpstreamServers, t.Seed,
		filepath.Join(dir, "snippets", "mime.types"),
		filepath.Join(dir, "conf.d", "upstreams.conf"),
		filepath.Join(dir, "sites", "*.conf"))
	return files
}

// loopback returns an address in 127.20.0.0/16: literal, so nginx -t needs
// no DNS, and never one a real service listens on.
func loopback(a, b int) string {
	return fmt.Sprintf("127.20.%d.%d", a%256, b%254+1)
}

var balancers = []string{"", "least_conn", "ip_hash", "hash $request_uri consistent", "random two least_conn"}

var nextUpstream = []string{
	"error timeout",
	"error timeout http_502 http_503 http_504",
	"error timeout invalid_header http_500 http_502",
	"error timeout http_429",
	"error timeout non_idempotent",
	"off",
}

func pick[T any](rnd *rand.Rand, xs ...T) T { return xs[rnd.IntN(len(xs))] }

func writeUpstream(b *strings.Builder, name string, i, servers int, rnd *rand.Rand) {
	fmt.Fprintf(b, "upstream %s {\n", name)
	bal := balancers[i%len(balancers)]
	if bal != "" {
		fmt.Fprintf(b, "    %s;\n", bal)
	}
	for s := range servers {
		params := fmt.Sprintf("max_fails=%d fail_timeout=%ds", pick(rnd, 1, 2, 3), pick(rnd, 5, 10, 30))
		switch {
		case s == servers-1 && servers > 1 && (bal == "" || bal == "least_conn"):
			params = "backup"
		case s == 0 && i%3 == 0:
			params = fmt.Sprintf("weight=%d %s", pick(rnd, 2, 3, 5), params)
		}
		fmt.Fprintf(b, "    server %s:%d %s;\n", loopback(i/250, i*7+s), 8000+i%1000, params)
	}
	fmt.Fprintf(b, "    keepalive %d;\n    keepalive_timeout %ds;\n}\n", pick(rnd, 16, 32, 64), pick(rnd, 30, 60, 75))
}

// writeServer writes server block i with k locations: always "/", a
// static-file regex location that falls back to the named @backend, and
// k-3 more drawn from the pool below.
func writeServer(b *strings.Builder, i int, ups []string, snippet string, k int, rnd *rand.Rand) {
	host := fmt.Sprintf("app-%05d.example.test", i)
	main, api := ups[i%len(ups)], ups[(i*3+1)%len(ups)]
	literal := fmt.Sprintf("%s:%d", loopback(200+i/250, i), 9000+i%500)
	next := func(k int) string { return nextUpstream[(i+k)%len(nextUpstream)] }

	optional := []string{
		"location = /healthz {\n        access_log off;\n        return 200 \"ok\\n\";\n    }",
		fmt.Sprintf("location ^~ /static/ {\n        alias /srv/www/%s/static/;\n        expires 7d;\n        add_header Cache-Control \"public\";\n    }", host),
		fmt.Sprintf("location /ws/ {\n        proxy_pass http://%s;\n        proxy_http_version 1.1;\n        proxy_set_header Upgrade $http_upgrade;\n        proxy_set_header Connection $connection_upgrade;\n        proxy_set_header Host $host;\n        proxy_read_timeout %ds;\n        proxy_next_upstream off;\n    }",
			literal, pick(rnd, 300, 3600)),
		fmt.Sprintf("location /legacy/ {\n        proxy_pass http://%s/;\n        proxy_redirect off;\n        proxy_buffering off;\n        proxy_next_upstream %s;\n        proxy_connect_timeout 3s;\n        proxy_read_timeout 20s;\n    }",
			literal, next(2)),
		fmt.Sprintf("location /api/ {\n        include %s;\n        proxy_pass http://%s/v1/;\n        proxy_next_upstream %s;\n        proxy_next_upstream_tries %d;\n        proxy_next_upstream_timeout %ds;\n        proxy_connect_timeout %ds;\n        proxy_read_timeout %ds;\n        proxy_send_timeout 30s;\n        limit_req zone=perip burst=40 nodelay;\n    }",
			snippet, api, next(1), pick(rnd, 2, 3), pick(rnd, 5, 10, 15), pick(rnd, 1, 2, 5), pick(rnd, 15, 30, 60)),
		fmt.Sprintf("location /admin/ {\n        allow 127.0.0.0/8;\n        deny all;\n        include %s;\n        proxy_pass http://%s;\n        proxy_next_upstream %s;\n    }",
			snippet, main, next(3)),
		fmt.Sprintf("location /upload/ {\n        client_max_body_size 100m;\n        proxy_request_buffering off;\n        include %s;\n        proxy_pass http://%s;\n        proxy_next_upstream off;\n        proxy_read_timeout 300s;\n        proxy_send_timeout 300s;\n    }",
			snippet, main),
	}
	rnd.Shuffle(len(optional), func(a, b int) { optional[a], optional[b] = optional[b], optional[a] })
	locations := slices.Clip(optional[:k-3])
	locations = append(locations,
		fmt.Sprintf("location ~* \\.(?:css|js|png|jpg|svg|woff2)$ {\n        root /srv/www/%s/public;\n        expires 30d;\n        try_files $uri @backend;\n    }", host),
		fmt.Sprintf("location / {\n        include %s;\n        proxy_pass http://%s;\n        proxy_next_upstream %s;\n        proxy_next_upstream_tries 3;\n        proxy_read_timeout %ds;\n    }",
			snippet, main, next(0), pick(rnd, 30, 60, 90)),
		fmt.Sprintf("location @backend {\n        include %s;\n        proxy_pass http://%s;\n    }", snippet, main),
	)

	b.WriteString("server {\n    listen 80;\n")
	if i%10 == 0 {
		fmt.Fprintf(b, "    listen 127.0.0.1:%d;\n", 10000+i%50000)
	}
	fmt.Fprintf(b, "    server_name %s www.%s;\n    access_log logs/access.log main;\n", host, host)
	if i%4 == 0 {
		fmt.Fprintf(b, "    add_header X-Served-By \"edge-%02d\" always;\n", i%16)
	}
	fmt.Fprintf(b, "    client_max_body_size %dm;\n    error_page 502 503 504 /50x.html;\n", pick(rnd, 1, 10, 20))
	for _, l := range locations {
		b.WriteString("\n    ")
		b.WriteString(l)
		b.WriteString("\n")
	}
	b.WriteString("}\n")
}

const proxyParams = `proxy_http_version 1.1;
proxy_set_header Connection "";
proxy_set_header Host $host;
proxy_set_header X-Real-IP $remote_addr;
proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
proxy_set_header X-Forwarded-Proto $scheme;
proxy_set_header X-Request-ID $request_id;
proxy_buffers 16 16k;
proxy_buffer_size 16k;
`

const mimeTypes = `types {
    text/html html htm;
    text/css css;
    application/javascript js;
    application/json json;
    image/png png;
    image/jpeg jpeg jpg;
    image/svg+xml svg;
    font/woff2 woff2;
}
`

const mainConf = `# generated: %d servers, %d locations each, %d servers per upstream, seed %d
worker_processes 2;
error_log logs/error.log warn;
pid logs/nginx.pid;

events {
    worker_connections 1024;
}

http {
    include %s;
    default_type application/octet-stream;

    log_format main '$remote_addr - $remote_user [$time_local] "$request" '
                    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
                    'rt=$request_time uct=$upstream_connect_time urt=$upstream_response_time ua=$upstream_addr';
    access_log logs/access.log main;

    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;

    sendfile on;
    keepalive_timeout 65s;
    server_tokens off;
    server_names_hash_max_size 65536;
    server_names_hash_bucket_size 128;

    proxy_connect_timeout 5s;
    proxy_send_timeout 60s;
    proxy_read_timeout 60s;
    proxy_next_upstream error timeout;

    map $http_upgrade $connection_upgrade {
        default upgrade;
        '' close;
    }

    limit_req_zone $binary_remote_addr zone=perip:10m rate=20r/s;

    include %s;

    server {
        listen 80 default_server;
        server_name _;
        return 444;
    }

    include %s;
}
`

// OneFile is a complete nginx.conf of 34 lines in one file, the size of a
// small service's configuration: one upstream, one server, three
// locations. Relative paths are relative to nginx's -p prefix.
const OneFile = `worker_processes 1;
error_log logs/error.log warn;
pid logs/nginx.pid;

events {
    worker_connections 512;
}

http {
    access_log logs/access.log;
    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    proxy_read_timeout 30s;

    upstream app {
        server 127.20.0.1:8000 max_fails=2;
        server 127.20.0.2:8000 max_fails=2;
        keepalive 32;
    }

    server {
        listen 8080;
        server_name app.example.test;
        location = /healthz { return 200 "ok\n"; }
        location /api/ {
            proxy_pass http://app;
            proxy_next_upstream error timeout http_502;
        }
        location / { proxy_pass http://app; }
    }
}
`
