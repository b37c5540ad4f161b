package load

import (
	"os"
	"path/filepath"
	"testing"
)

// A file named on the command line is nginx when it is empty (nginx reads
// an empty file) or when it holds statements nginx can read although no
// table knows its first directive (a naxsi rules file); a YAML file that is
// no Envoy configuration is still neither.
func TestDetectExplicitFallbacks(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		src, want string
		err       bool
	}{
		"mime.types":       {src: "", want: KindNginx},
		"naxsi_core.rules": {src: "MainRule \"str:<\" \"msg:html open tag\" \"mz:ARGS|URL|BODY\" \"s:$XSS:8\" id:1302;\n", want: KindNginx},
		"values.yaml":      {src: "replicas: 3\nimage: app\n", err: true},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		kind, err := detect(p, "", true, DefaultMaxFileSize)
		if (err != nil) != c.err || kind != c.want {
			t.Errorf("%s: kind %q, err %v; want %q, error %v", name, kind, err, c.want, c.err)
		}
	}
}
