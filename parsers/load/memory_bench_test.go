package load

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/proxylint/proxylint/bench/gen"
)

// BenchmarkMemoryPerByte loads a large generated nginx configuration and a
// large generated Envoy bootstrap and reports memory per byte of input:
//
//   - alloc-B/in-B: bytes allocated by one load, per input byte;
//   - live-B/in-B: heap still in use after the load with the model kept,
//     per input byte (what a run holds while the rules look at it);
//   - peak-B/in-B: the largest heap seen during the load, sampled every
//     millisecond, less the heap before it, per input byte (approximate:
//     a short peak between samples is missed).
func BenchmarkMemoryPerByte(b *testing.B) {
	b.Run("nginx-2000-servers", func(b *testing.B) {
		dir := b.TempDir()
		main, err := gen.NginxTree{Servers: 2000}.Write(dir)
		if err != nil {
			b.Fatal(err)
		}
		benchMemory(b, main, dirSize(b, dir))
	})
	b.Run("envoy-bootstrap", func(b *testing.B) {
		src := gen.EnvoyBootstrap{Listeners: 40, RoutesPerListener: 50, Clusters: 1000}.YAML()
		path := filepath.Join(b.TempDir(), "envoy.yaml")
		if err := os.WriteFile(path, src, 0o600); err != nil {
			b.Fatal(err)
		}
		benchMemory(b, path, int64(len(src)))
	})
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func benchMemory(b *testing.B, path string, size int64) {
	b.SetBytes(size)
	b.ReportAllocs()
	var alloc, live, peak float64
	runs := 0
	for b.Loop() {
		runtime.GC()
		before := heapBytes()
		stop := samplePeak()
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		m := Load([]string{path}, Options{})
		runtime.ReadMemStats(&ms1)
		top := stop()
		for _, d := range m.Diagnostics {
			if d.Fatal {
				b.Fatal(d.Error())
			}
		}
		runtime.GC()
		after := heapBytes()
		runtime.KeepAlive(m)
		alloc += float64(ms1.TotalAlloc - ms0.TotalAlloc)
		live += float64(after) - float64(before)
		peak += float64(max(top, after)) - float64(before)
		runs++
	}
	in := float64(size) * float64(runs)
	b.ReportMetric(alloc/in, "alloc-B/in-B")
	b.ReportMetric(live/in, "live-B/in-B")
	b.ReportMetric(peak/in, "peak-B/in-B")
	b.ReportMetric(float64(size), "input-B")
}

// heapBytes is the memory of live and not yet collected heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeak watches the heap until the returned function is called,
// which returns the largest size seen.
func samplePeak() func() uint64 {
	var (
		mu   sync.Mutex
		top  uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			h := heapBytes()
			mu.Lock()
			top = max(top, h)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		h := heapBytes()
		mu.Lock()
		defer mu.Unlock()
		return max(top, h)
	}
}
