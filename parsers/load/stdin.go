package load

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
	"github.com/proxylint/proxylint/parsers/kube"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// StdinPath names standard input among the paths to lint.
const StdinPath = "-"

// DefaultStdinName is the name standard input goes by in positions when
// no --stdin-filename names it.
const DefaultStdinName = "<stdin>"

// Stdin is the content of standard input, read once before loading.
type Stdin struct {
	Data []byte
	// Name is the path positions in it are reported under; includes of
	// a plain nginx file resolve against its directory.
	Name string
}

// kindStdin marks the item standing for standard input: its kind is told
// from its content when it is loaded.
const kindStdin = "stdin"

func (s *Stdin) name() string {
	if s == nil || s.Name == "" {
		return DefaultStdinName
	}
	return s.Name
}

// loadStdin loads standard input: an "nginx -T" dump (its files served
// from memory), an Envoy configuration or admin /config_dump output, or
// one nginx file standing at its name (its includes read from the disk).
func loadStdin(_ string, opts Options, roots []string) Result {
	name := opts.Stdin.name()
	if opts.Stdin == nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(name, "standard input was named (\"-\") but not read")}}
	}
	data := opts.Stdin.Data
	if opts.Kind != KindEnvoy && nginx.IsDump(data) {
		return nginxResult(nginx.LoadDump(name, data, nginxOptions(opts, nil)), opts, inMemory)
	}
	kind, err := detectBytes(name, data, opts.Kind)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(name, err.Error())}}
	}
	if kind == KindKube {
		// kubectl get -o yaml, helm template: joined with the run's
		// other manifests.
		return kubeResult(kube.Parse(name, data))
	}
	if kind == KindEnvoy {
		target := opts.target(model.Envoy)
		return envoyResult(envoy.Read(name, data, envoy.Options{Target: target}))
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(name, err.Error())}}
	}
	mem := &nginx.MemFS{Files: map[string][]byte{abs: data}, Fallback: true, Max: opts.MaxFileSize}
	no := nginxOptions(opts, roots)
	no.FS = mem
	cfg := nginx.Load(name, no)
	// Standard input stands for its file; its includes are read from
	// the disk.
	return nginxResult(cfg, opts, func(real string) bool { _, ok := mem.Files[real]; return !ok })
}

// detectBytes tells the kind of standard input by its content, as detect
// does for a file named on the command line.
func detectBytes(name string, data []byte, forced string) (string, error) {
	if forced != "" {
		return forced, nil
	}
	head := data[:min(len(data), headSize)]
	switch {
	case kube.Detect(head) || kube.DetectLinked(head):
		return KindKube, nil
	case bytes.IndexByte(data, 0) < 0 && len(bytes.TrimSpace(data)) > 0 && envoy.Detect(name, data):
		return KindEnvoy, nil
	case kube.DetectManifest(head):
		return KindKube, nil
	case looksNginx(head, false):
		return KindNginx, nil
	}
	return "", fmt.Errorf("%s: cannot tell whether standard input is an nginx or an Envoy configuration; name the kind with --kind nginx or --kind envoy", name)
}

// loadDumpFile loads a file that holds an "nginx -T" dump; ok is false
// for any other file.
func loadDumpFile(path string, opts Options) (Result, bool) {
	src := opts.source()
	if !nginx.IsDump(src.head(path, 1<<10)) {
		return Result{}, false
	}
	data, err := src.read(path, opts.MaxFileSize)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{loadError(path, fmt.Sprintf("cannot read %s: %v", path, unwrap(err)))}}, true
	}
	return nginxResult(nginx.LoadDump(path, data, nginxOptions(opts, nil)), opts, inMemory), true
}
