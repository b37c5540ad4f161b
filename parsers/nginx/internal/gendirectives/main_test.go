package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command table as modules write them: comments, macros for names,
// combined argument flags, casts in the post field, masks in the file.
const source = `
#define TOP_RULE_T "MainRule"

static ngx_conf_bitmask_t  ngx_demo_next_masks[] = {
    { ngx_string("error"), 0x2 },
    { ngx_string("timeout"), 0x4 },
    { ngx_null_string, 0 }
};

static ngx_command_t  ngx_demo_commands[] = {

    { ngx_string("demo_next"), // alt name below
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_1MORE,
      ngx_conf_set_bitmask_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_demo_conf_t, next),
      &ngx_demo_next_masks },

    /* a block with a cast post */
    { ngx_string("demo_by_lua_block"),
      NGX_HTTP_LOC_CONF|NGX_HTTP_LIF_CONF|NGX_CONF_BLOCK|NGX_CONF_NOARGS,
      ngx_demo_block,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      (void *) ngx_demo_handler },

    { ngx_string(TOP_RULE_T),
      NGX_HTTP_MAIN_CONF | NGX_CONF_TAKE12,
      ngx_demo_rule,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("demo_timeout"),
      NGX_STREAM_MAIN_CONF|NGX_STREAM_SRV_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_STREAM_SRV_CONF_OFFSET,
      offsetof(ngx_demo_conf_t, timeout),
      NULL },

      ngx_null_command
};
`

func TestParseSource(t *testing.T) {
	defines, masks := map[string]string{}, map[string][]string{}
	readDefines([]byte(source), defines)
	readMasks([]byte(source), masks)
	cmds := parseSource([]byte(source), defines, masks)
	got := map[string]variant{}
	for _, c := range cmds {
		got[c.name] = c.v
	}
	require.Len(t, got, 4)
	assert.Equal(t, variant{
		ctx: []string{"ctxHTTP", "ctxHTTPServer", "ctxHTTPLocation"}, args: []string{"arg1More"},
		kind: "kindBitmask", mask: "ngx_demo_next_masks", words: []string{"error", "timeout"},
	}, got["demo_next"])
	assert.Equal(t, variant{
		ctx: []string{"ctxHTTPLocation", "ctxHTTPLocationIf"}, block: []string{"ctxHTTPLocation", "ctxHTTPLocationIf"},
		args: []string{"argNone"}, kind: "kindOther",
	}, got["demo_by_lua_block"])
	assert.Equal(t, variant{ctx: []string{"ctxHTTP"}, args: []string{"arg1", "arg2"}, kind: "kindOther"}, got["MainRule"])
	assert.Equal(t, variant{ctx: []string{"ctxStream", "ctxStreamServer"}, args: []string{"arg1"}, kind: "kindMsec"}, got["demo_timeout"])
}

// TestUnknownMaskIsNotGuessed: an enum whose table is in another file
// leaves the value unchecked rather than refusing every word.
func TestUnknownMaskIsNotGuessed(t *testing.T) {
	src := `{ ngx_string("demo_mode"), NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1, ngx_conf_set_enum_slot, NGX_HTTP_LOC_CONF_OFFSET, 0, &ngx_elsewhere }`
	cmds := parseSource([]byte(src), nil, map[string][]string{})
	require.Len(t, cmds, 1)
	assert.Equal(t, "kindOther", cmds[0].v.kind)
}

// TestCommandsInIncludedHeaders: a command table split over headers that a
// source file includes (nginx-vod-module), with offsets that add a macro
// to offsetof, is read whole.
func TestCommandsInIncludedHeaders(t *testing.T) {
	tr := tree{files: map[string][]byte{
		"ngx_demo_conf.c": []byte(`
static ngx_conf_enum_t demo_methods[] = {
	{ ngx_string("none"), 0 },
	{ ngx_string("aes-128"), 1 },
	{ ngx_null_string, 0 }
};
ngx_command_t ngx_demo_commands[] = {
	{ ngx_string("demo_mode"),
	NGX_HTTP_MAIN_CONF | NGX_HTTP_SRV_CONF | NGX_HTTP_LOC_CONF | NGX_CONF_TAKE1,
	ngx_conf_set_flag_slot,
	NGX_HTTP_LOC_CONF_OFFSET,
	offsetof(ngx_demo_loc_conf_t, mode),
	NULL },
#include "ngx_demo_hls_commands.h"
#include <stdio.h>
	ngx_null_command
};
`),
		"ngx_demo_hls_commands.h": []byte(`#define BASE_OFFSET offsetof(ngx_demo_loc_conf_t, hls)

#if (NGX_HAVE_OPENSSL_EVP)
	{ ngx_string("demo_hls_encryption_method"),
	NGX_HTTP_MAIN_CONF | NGX_HTTP_SRV_CONF | NGX_HTTP_LOC_CONF | NGX_CONF_TAKE1,
	ngx_conf_set_enum_slot,
	NGX_HTTP_LOC_CONF_OFFSET,
	BASE_OFFSET + offsetof(ngx_demo_hls_loc_conf_t, encryption_method),
	demo_methods },
#endif

#undef BASE_OFFSET
`),
	}}
	cmds := tr.commands()
	require.Len(t, cmds, 2)
	assert.Equal(t, []variant{{ctx: []string{"ctxHTTP", "ctxHTTPServer", "ctxHTTPLocation"}, args: []string{"arg1"}, kind: "kindEnum", mask: "demo_methods", words: []string{"none", "aes-128"}}},
		cmds["demo_hls_encryption_method"])
	assert.Equal(t, "kindFlag", cmds["demo_mode"][0].kind)
}
