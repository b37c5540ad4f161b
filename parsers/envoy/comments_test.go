package envoy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

func TestComments(t *testing.T) {
	src := `# head comment
static_resources:  # after a key
  clusters:
  - name: "a # not a comment"
    alt_stat_name: 'it''s # not either'
    connect_timeout: 1s # want retry "x"
    metadata:
      filter_metadata:
        script:
          text: |
            # inside a literal block
            echo #1
          more: >-
            folded # text
    # after the block
  - name: b#c
    connect_timeout: 2s	# after a tab
  - name: "multi
      line # still quoted"
    connect_timeout: 3s # héllo
`
	got := comments("c.yaml", []byte(src))
	var lines []string
	for _, c := range got {
		lines = append(lines, fmt.Sprintf("%d:%d %s", c.Pos.Line, c.Pos.Col, c.Text))
	}
	want := []string{
		"1:1  head comment",
		"2:20  after a key",
		`6:25  want retry "x"`,
		"15:5  after the block",
		"17:25  after a tab",
		"20:25  héllo",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("comments:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// The file is still valid Envoy configuration apart from the
	// metadata's free-form contents.
	r := loadString(t, "c.yaml", src)
	if len(r.File.Comments) != len(want) {
		t.Errorf("Result.File.Comments has %d comments", len(r.File.Comments))
	}
}

func TestRetryOnTokens(t *testing.T) {
	src := `resources:
- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: r
  virtual_hosts:
  - name: vh
    domains: ["*"]
    routes:
    - match: {prefix: /a}
      route:
        cluster: c
        retry_policy: {retry_on: "5xx, gatway-error,connect-failure"}
    - match: {prefix: /b}
      route:
        cluster: c
        retry_policy:
          retry_on: reset-before-request,retriable-4xx,bogus
`
	r := loadString(t, "rt.yaml", src)
	wantClean(t, r)
	// A file of route configurations: their routes hang on a listener
	// that stands for the one not in the file.
	p := onlyProxy(t, r)
	if len(p.Listeners) != 1 || p.Listeners[0].Name != `route configuration "r" (its listener is not among the files linted)` || len(p.Listeners[0].Routes) != 2 || p.Listeners[0].Codec.Valid() {
		t.Fatalf("listeners %+v", p.Listeners)
	}
	if u := p.Listeners[0].Routes[1].Retry.Unknown; len(u) != 1 || u[0].Value != "bogus" || u[0].Pos().Col != 56 {
		t.Errorf("unknown tokens %+v", u)
	}
	tree, _, err := parseYAML([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	onA := tree[0].get("resources").item(0).get("virtual_hosts").item(0).get("routes").item(0).get("route").get("retry_policy").get("retry_on")
	toks := splitRetryOn(onA)
	var got []string
	for _, tk := range toks {
		got = append(got, fmt.Sprintf("%s@%d:%d", tk.text, tk.line, tk.col))
	}
	if w := "5xx@11:35 gatway-error@11:40 connect-failure@11:53"; strings.Join(got, " ") != w {
		t.Errorf("tokens %v, want %s", got, w)
	}
	onB := tree[0].get("resources").item(0).get("virtual_hosts").item(0).get("routes").item(1).get("route").get("retry_policy").get("retry_on")
	got = nil
	for _, tk := range splitRetryOn(onB) {
		got = append(got, fmt.Sprintf("%s@%d:%d", tk.text, tk.line, tk.col))
	}
	if w := "reset-before-request@16:21 retriable-4xx@16:42 bogus@16:56"; strings.Join(got, " ") != w {
		t.Errorf("tokens %v, want %s", got, w)
	}
	if !KnownRetryOn("reset-before-request", model.Target{Product: model.Envoy}) ||
		KnownRetryOn("reset-before-request", model.Target{Product: model.Envoy, Version: model.Version{Major: 1, Minor: 30}}) ||
		KnownRetryOn("gatway-error", model.Target{Product: model.Envoy}) {
		t.Error("KnownRetryOn")
	}
}

func TestRetryOnUnknownInModel(t *testing.T) {
	src := `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: hcm
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
          route_config:
            virtual_hosts:
            - name: vh
              domains: ["*"]
              retry_policy: {retry_on: "5xx,gatway-error"}
              routes:
              - match: {prefix: /}
                route: {cluster: c}
  clusters:
  - name: c
    connect_timeout: 1s
`
	r := loadString(t, "u.yaml", src)
	wantClean(t, r)
	rt := onlyProxy(t, r).Listeners[0].Routes[0]
	if len(rt.Retry.Unknown) != 1 {
		t.Fatalf("unknown %+v", rt.Retry.Unknown)
	}
	at(t, "unknown token", rt.Retry.Unknown[0].Setting, "gatway-error", 15, 45, false)
	if rt.Retry.Unknown[0].Level() != "virtual_host" {
		t.Errorf("level %q", rt.Retry.Unknown[0].Level())
	}
}
