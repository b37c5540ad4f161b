package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nginx writes each file of a dump as its header, its bytes and one line
// feed: a file that ends without a line feed and one that ends with one
// both come back byte for byte.
func TestSplitDump(t *testing.T) {
	dump := "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n" +
		"# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp { include /etc/nginx/a.conf; }\n\n" +
		"# configuration file /etc/nginx/a.conf:\nserver { listen 80; }" + "\n" +
		"# configuration file /etc/nginx/empty.conf:\n\n"
	d, err := SplitDump([]byte(dump))
	require.NoError(t, err)
	assert.Equal(t, []string{"/etc/nginx/nginx.conf", "/etc/nginx/a.conf", "/etc/nginx/empty.conf"}, d.Paths)
	assert.Equal(t, "events {}\nhttp { include /etc/nginx/a.conf; }\n", string(d.Files["/etc/nginx/nginx.conf"]))
	assert.Equal(t, "server { listen 80; }", string(d.Files["/etc/nginx/a.conf"]))
	assert.Equal(t, "", string(d.Files["/etc/nginx/empty.conf"]))

	assert.True(t, IsDump([]byte(dump)))
	assert.False(t, IsDump([]byte("events {}\n# configuration file /x:\n")))

	_, err = SplitDump([]byte("events {}\n"))
	assert.ErrorContains(t, err, "not an nginx -T dump")
}

// An include in a dump resolves to the dumped copy, globs match the dumped
// files in order, and a file the dump lacks is a note at the include.
func TestLoadDump(t *testing.T) {
	dump := "# configuration file /srv/ngx/nginx.conf:\nevents {}\nhttp {\n    include conf.d/*.conf;\n    include missing.conf;\n}\n\n" +
		"# configuration file /srv/ngx/conf.d/b.conf:\nserver { listen 81; }\n\n" +
		"# configuration file /srv/ngx/conf.d/a.conf:\nserver { listen 80; }\n\n"
	cfg := LoadDump("dump", []byte(dump), Options{})
	var paths []string
	for _, f := range cfg.Files {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"/srv/ngx/nginx.conf", "/srv/ngx/conf.d/a.conf", "/srv/ngx/conf.d/b.conf"}, paths)
	require.Len(t, cfg.Diagnostics, 1)
	d := cfg.Diagnostics[0]
	assert.Equal(t, CodeInclude, d.Code)
	assert.False(t, d.Fatal)
	assert.Equal(t, "/srv/ngx/nginx.conf", d.Pos.File)
	assert.Equal(t, 4, int(d.Pos.Line))
	assert.Equal(t, `include "missing.conf": /srv/ngx/missing.conf is not in the nginx -T dump (dump), so it was not linted`, d.Message)
	assert.False(t, cfg.Syntax)
}

// Only the shape nginx -T writes is a dump: its messages (as they are, or
// commented out when the dump was saved as a configuration) and then a
// header whose path has the slash nginx's prefix always gives it. A
// comment that begins the same way starts a plain configuration.
func TestIsDumpShape(t *testing.T) {
	for _, src := range []string{
		"# configuration file /etc/nginx/nginx.conf:\nevents {}\n",
		"# configuration file rel/nginx.conf:\nevents {}\n",
		"nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\n# configuration file /etc/nginx/nginx.conf:\nevents {}\n",
		"# nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n# nginx: configuration file /etc/nginx/nginx.conf test is successful\n# configuration file /etc/nginx/nginx.conf:\nevents {}\n",
		"#nginx: [warn] the \"ssl\" directive is deprecated\r\n# configuration file /etc/nginx/nginx.conf:\r\nevents {}\r\n",
	} {
		assert.True(t, IsDump([]byte(src)), "%q", src)
	}
	for _, src := range []string{
		"# configuration file for the shop:\nevents {}\n",
		"# configuration file shop.conf:\nevents {}\n",
		"# configuration file /etc/nginx/:\nevents {}\n",
		"# configuration file /etc/nginx/nginx.conf\nevents {}\n",
		"# nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nevents {}\n",
	} {
		assert.False(t, IsDump([]byte(src)), "%q", src)
	}

	d, err := SplitDump([]byte("# nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n" +
		"# configuration file /etc/nginx/nginx.conf:\n# configuration file for the shop:\nevents {}\n\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"/etc/nginx/nginx.conf"}, d.Paths)
	assert.Equal(t, "# configuration file for the shop:\nevents {}\n", string(d.Files["/etc/nginx/nginx.conf"]))
}
