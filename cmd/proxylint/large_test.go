package main

import (
	"bytes"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/bench/gen"
)

// allocatedBy is the bytes a whole run allocates on a generated input of
// n elements.
func allocatedBy(t *testing.T, dir, name string, write func(io.Writer, int) error, n int) uint64 {
	t.Helper()
	var src bytes.Buffer
	require.NoError(t, write(&src, n))
	writeFile(t, dir, name, src.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var stdout, stderr bytes.Buffer
	code := run([]string{"--no-config", "--no-color", "--format", "json", filepath.Join(dir, name)}, &stdout, &stderr, noEnv)
	runtime.ReadMemStats(&after)
	require.NotEqual(t, exitError, code, stderr.String())
	return after.TotalAlloc - before.TotalAlloc
}

// A run's memory grows in a straight line with its input: four times the
// locations, routes or resources allocate at most about four times as
// much (the sizes of docs/benchmarks.md, "Large inputs", are measured
// with go run ./bench large; these are small enough for every test run).
func TestLargeInputGrowsLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of a few megabytes")
	}
	for _, c := range []struct {
		name  string
		write func(io.Writer, int) error
		n     int
	}{
		{"nginx.conf", gen.NginxLocations, 2000},
		{"envoy.json", gen.EnvoyRoutesJSON, 5000},
		{"services.yaml", kubeRoutes, 1000},
	} {
		dir := t.TempDir()
		small := allocatedBy(t, dir, c.name, c.write, c.n)
		large := allocatedBy(t, dir, c.name, c.write, 4*c.n)
		t.Logf("%s: %d elements allocate %d bytes, %d allocate %d (%.2f times)", c.name, c.n, small, 4*c.n, large, float64(large)/float64(small))
		assert.Less(t, float64(large), 4.6*float64(small), "%s: %d elements allocate %d bytes, %d allocate %d", c.name, c.n, small, 4*c.n, large)
	}
}

// kubeRoutes writes n VirtualServices, each routing to a Service of its
// own, and the Services.
func kubeRoutes(w io.Writer, n int) error {
	var b bytes.Buffer
	if err := gen.KubeServices(&b, n); err != nil {
		return err
	}
	for range n {
		b.WriteString("---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: vs\nspec:\n  hosts: [svc]\n  http:\n  - route:\n    - destination: {host: svc}\n    timeout: 5s\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}
