package lsp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// The .proxylint.yaml nearest above a document applies to it: one in
// conf.d/ turns a rule off for the fragment, not for nginx.conf above it.
// A buffer of the configuration file counts before it is saved, and its
// mistake is shown on it and at the top of the documents it governs.
func TestNearestConfigurationFile(t *testing.T) {
	root := workspace(t, map[string]string{
		"nginx.conf":                mainConf,
		"conf.d/app.conf":           appConf,
		"conf.d/.proxylint.yaml":    "rules:\n  disable: [upstream-no-keepalive]\n",
		"other/.proxylint.yaml.txt": "",
	})
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("conf.d/app.conf", "nginx")
	assert.Equal(t, []string{"nginx-include 0:0"}, summary(s.diagnostics("conf.d/app.conf", 1)))
	s.open("nginx.conf", "nginx")
	assert.Equal(t, []string{"log-format-blind 1:0", "upstream-no-keepalive 3:4 -> conf.d/app.conf:3"}, summary(s.diagnostics("nginx.conf", 1)))

	s.open("conf.d/.proxylint.yaml", "yaml")
	s.change("conf.d/.proxylint.yaml", 2, "rules:\n  disable: [upstream-no-keep-alive]\n")
	cfg := s.diagnostics("conf.d/.proxylint.yaml", 2)
	require.Len(t, cfg, 1)
	assert.Equal(t, `unknown rule "upstream-no-keep-alive"; did you mean "upstream-no-keepalive"?`, message(cfg[0]))
	assert.Equal(t, protocol.Position{Line: 1, Character: 12}, cfg[0].Range.Start)
	app := s.diagnostics("conf.d/app.conf", 1)
	require.Len(t, app, 1)
	assert.Equal(t, "not linted: "+filepath.Join(root, "conf.d", ".proxylint.yaml")+`:2:13: unknown rule "upstream-no-keep-alive"; did you mean "upstream-no-keepalive"?`, message(app[0]))

	s.change("conf.d/.proxylint.yaml", 3, "rules:\n  disable: [log-format-blind]\n")
	assert.Equal(t, []string{"nginx-include 0:0", "upstream-no-keepalive 6:8"}, summary(s.diagnostics("conf.d/app.conf", 1)))
}

// A manifest is joined with the others beside it: the controller's
// ConfigMap in another file turns on retries of POSTs for the Ingress.
func TestManifestsAreJoined(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "fixtures", "retry-timeout-write", "ingress-nginx-split", name))
		require.NoError(t, err)
		return string(b)
	}
	ingress, configMap := read("shop-ingress.yaml"), read("controller-configmap.yaml")
	root := workspace(t, map[string]string{"k8s/shop-ingress.yaml": ingress, "k8s/controller-configmap.yaml": configMap})
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("k8s/shop-ingress.yaml", "yaml")
	diags := s.diagnostics("k8s/shop-ingress.yaml", 1)
	// The finding names the ConfigMap's key that adds non_idempotent.
	require.Equal(t, []string{"retry-timeout-write 7:53 -> shop-ingress.yaml:14 -> controller-configmap.yaml:10"}, summary(diags))
	assert.Contains(t, message(diags[0]), "non_idempotent replays POST")

	// The ConfigMap's buffer, edited, no longer turns the retries on.
	s.open("k8s/controller-configmap.yaml", "yaml", strings.Replace(configMap, `retry-non-idempotent: "true"`, `retry-non-idempotent: "false"`, 1))
	diags = s.diagnostics("k8s/shop-ingress.yaml", 1)
	for _, d := range diags {
		assert.NotContains(t, message(d), "non_idempotent")
	}
}

// rawClient speaks the base protocol by hand, to send what a typed client
// cannot.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func (c *rawClient) send(body string) {
	c.t.Helper()
	_ = c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) receive() string {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n := -1
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading a header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		_, _ = fmt.Sscanf(line, "Content-Length: %d", &n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		c.t.Fatal(err)
	}
	return string(body)
}

// receiveReply skips notifications to the next response.
func (c *rawClient) receiveReply() string {
	for {
		m := c.receive()
		if !strings.Contains(m, `"method"`) {
			return m
		}
	}
}

// Messages a client should not send get errors; none ends the server.
func TestBadMessagesGetErrors(t *testing.T) {
	root := nginxWorkspace(t)
	srvSide, clientSide := net.Pipe()
	t.Cleanup(func() { _ = clientSide.Close() })
	exit := make(chan int, 1)
	go func() { exit <- Serve(context.Background(), srvSide, Options{Log: io.Discard}) }()
	c := &rawClient{t: t, conn: clientSide, r: bufio.NewReader(clientSide)}

	c.send(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}`)
	assert.Contains(t, c.receiveReply(), `"code":-32002`, "not initialized yet")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{},"rootUri":"file://` + root + `"}}`)
	assert.Contains(t, c.receiveReply(), `"name":"proxylint"`)
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)

	c.send(`{this is not JSON`)
	assert.Contains(t, c.receiveReply(), `"id":null,"error":{"code":-32700`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":5}}`)
	assert.Contains(t, c.receiveReply(), `"id":3,"error":{"code":-32700`)
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":[]}}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"proxylint/nothing","params":{}}`)
	assert.Contains(t, c.receiveReply(), `"id":4,"error":{"code":-32601`)

	// Still serving: a document opened now is linted.
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://` + root + `/conf.d/app.conf","languageId":"nginx","version":1,"text":` + fmt.Sprintf("%q", appConf) + `}}}`)
	for {
		m := c.receive()
		if strings.Contains(m, "publishDiagnostics") {
			assert.Contains(t, m, `"code":"upstream-no-keepalive"`)
			break
		}
	}
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case code := <-exit:
		assert.Equal(t, 1, code, "exit without shutdown")
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// The language server finds a document's .proxylint.yaml as the command
// line finds a linted file's (config.ForFile): the nearest above it, up to
// the repository root. Three copies of one nginx.conf under three nested
// files get the severity each file sets, or nothing where it disables the
// rule, as "proxylint ." reports them from the root
// (cmd/proxylint's TestNearestConfigPerFile).
func TestNestedConfigurationFiles(t *testing.T) {
	conf := "events {}\nhttp {\n    server {\n        listen 80;\n        location / {\n            proxy_pass http://127.0.0.1:8000;\n        }\n    }\n}\n"
	root := workspace(t, map[string]string{
		".proxylint.yaml":              "rules:\n  severity:\n    upstream-no-keepalive: error\n",
		"nginx/.proxylint.yaml":        "rules:\n  severity:\n    upstream-no-keepalive: note\n",
		"nginx/legacy/.proxylint.yaml": "rules:\n  disable: [upstream-no-keepalive]\n",
		"edge/nginx.conf":              conf,
		"nginx/nginx.conf":             conf,
		"nginx/legacy/nginx.conf":      conf,
	})
	s := start(t, root, protocol.ClientCapabilities{})
	for _, c := range []struct {
		name string
		want []string
	}{
		// Severities 1: Error, 3: Information.
		{"edge/nginx.conf", []string{"upstream-no-keepalive 5:12 1"}},
		{"nginx/nginx.conf", []string{"upstream-no-keepalive 5:12 3"}},
		{"nginx/legacy/nginx.conf", nil},
	} {
		s.open(c.name, "nginx")
		var got []string
		for _, d := range s.diagnostics(c.name, 1) {
			if code, _ := d.Code.(protocol.String); code == "upstream-no-keepalive" {
				got = append(got, fmt.Sprintf("%s %d:%d %d", code, d.Range.Start.Line, d.Range.Start.Character, d.Severity))
			}
		}
		assert.Equal(t, c.want, got, c.name)
	}
}
