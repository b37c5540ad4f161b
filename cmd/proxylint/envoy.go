package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/parsers"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/parsers/wire"
	"github.com/proxylint/proxylint/rules"
)

// envoyProgramName is the program that reads Envoy files. It is a separate
// program because Envoy's API (go-control-plane) takes longer to set up at
// start-up than linting a small nginx configuration: proxylint runs it only
// when it meets an Envoy file.
const envoyProgramName = "proxylint-envoy"

// envoyLoader reads Envoy files by running proxylint-envoy.
func envoyLoader(getenv func(string) string) load.EnvoyLoader {
	return func(path string, target parsers.Target) load.Result {
		fail := func(msg string) load.Result {
			return load.Result{Diagnostics: []parsers.Diagnostic{{
				Code: rules.LoadError.ID, Severity: parsers.Error, Pos: parsers.Pos{File: path}, Message: msg, Fatal: true,
			}}}
		}
		bin, err := envoyProgram(getenv)
		if err != nil {
			return fail(fmt.Sprintf("%s: %v", path, err))
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "--target", target.String(), path)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fail(fmt.Sprintf("%s: %s failed: %v: %s", path, bin, err, strings.TrimSpace(stderr.String())))
		}
		b, err := wire.Decode(&stdout)
		if err != nil {
			return fail(fmt.Sprintf("%s: %v", path, err))
		}
		return load.Result{Proxies: b.Proxies, Files: b.Files, Diagnostics: b.Diagnostics}
	}
}

// envoyProgram finds proxylint-envoy: PROXYLINT_ENVOY, next to this
// program (where go install puts both), or on PATH.
func envoyProgram(getenv func(string) string) (string, error) {
	if p := getenv("PROXYLINT_ENVOY"); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), envoyProgramName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(envoyProgramName); err == nil {
		return p, nil
	}
	return "", errors.New("reading Envoy files needs " + envoyProgramName + ", installed next to proxylint: " +
		"go install github.com/proxylint/proxylint/cmd/...@latest (or set PROXYLINT_ENVOY to its path)")
}
