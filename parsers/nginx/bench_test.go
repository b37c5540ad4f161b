package nginx

import (
	gocontext "context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// benchInput is a configuration for the reader's benchmarks: its main
// file and every file it includes.
type benchInput struct {
	name  string
	main  string
	files map[string][]byte // path -> contents
	size  int64             // of the files
	// loaded is how many files Load reads, and loadSize their size: a
	// file included twice counts twice.
	loaded   int
	loadSize int64
}

// benchInputs generates configurations of 10, 200 and 2000 servers with
// the shared generator (once, into b.TempDir()) and adds the corpus's
// largest file.
func benchInputs(b *testing.B) []benchInput {
	b.Helper()
	var out []benchInput
	gen, err := filepath.Abs("../../../shared/bench/gen_nginx.py")
	if err == nil {
		_, err = os.Stat(gen)
	}
	python, perr := exec.LookPath("python3")
	if err == nil && perr == nil {
		tmp := b.TempDir()
		for _, n := range []int{10, 200, 2000} {
			dir := filepath.Join(tmp, fmt.Sprint(n))
			ctx, cancel := gocontext.WithTimeout(gocontext.Background(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, python, gen, "-n", fmt.Sprint(n), "-o", dir)
			defer cancel()
			if msg, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", gen, err, msg)
			}
			out = append(out, readBenchInput(b, fmt.Sprintf("servers=%d", n), filepath.Join(dir, "nginx.conf")))
		}
		big := filepath.Join(tmp, "8MB.conf")
		if err := os.WriteFile(big, bigConfig(8<<20), 0o644); err != nil {
			b.Fatal(err)
		}
		out = append(out, readBenchInput(b, "single-8MB", big))
	} else {
		b.Logf("no generated configurations (python3: %v, generator: %v)", perr, err)
	}
	largest, err := filepath.Abs(filepath.Join(corpusDir, "nginx/nginxinc__nginx-go-crossplane/testdata/configs/large-config/nginx.conf"))
	if err == nil {
		if _, err = os.Stat(largest); err == nil {
			out = append(out, readBenchInput(b, "corpus-largest", largest))
		}
	}
	if len(out) == 0 {
		b.Skip("neither python3 with the generator nor the corpus is available")
	}
	return out
}

func readBenchInput(b *testing.B, name, main string) benchInput {
	b.Helper()
	cfg := Load(main, Options{})
	if cfg.Syntax || cfg.Main == nil {
		b.Fatalf("%s does not load: %v", main, cfg.Diagnostics)
	}
	in := benchInput{name: name, main: main, files: map[string][]byte{}}
	for _, f := range cfg.Files {
		if _, ok := in.files[f.Path]; !ok {
			in.size += int64(len(f.Source))
		}
		in.files[f.Path] = f.Source
		in.loadSize += int64(len(f.Source))
	}
	in.loaded = len(cfg.Files)
	return in
}

// cpuTime is the processor time the process has used (all threads, the
// garbage collector's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureCPU reports, besides the wall-clock figures, the processor time
// per operation and the throughput it implies: on a shared machine the
// wall clock also counts waiting for a processor.
func measureCPU(b *testing.B, size int64) func() {
	start := cpuTime()
	return func() {
		cpu := cpuTime() - start
		if cpu <= 0 || b.N == 0 {
			return
		}
		perOp := float64(cpu.Nanoseconds()) / float64(b.N)
		b.ReportMetric(perOp, "cpu-ns/op")
		b.ReportMetric(float64(size)/perOp*1e9/1e6, "MB/cpu-s")
	}
}

// BenchmarkTokenize measures the lexer alone, over every file of each
// configuration.
func BenchmarkTokenize(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(in.size)
			defer measureCPU(b, in.size)()
			for b.Loop() {
				for path, src := range in.files {
					lx := newLexer(path, src)
					for {
						st, err := lx.next()
						if err != nil {
							b.Fatal(err)
						}
						if st.kind == stmtEOF {
							break
						}
					}
				}
			}
		})
	}
}

// BenchmarkParse measures reading every file of each configuration into
// directive trees, without includes or file I/O.
func BenchmarkParse(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(in.size)
			defer measureCPU(b, in.size)()
			for b.Loop() {
				for path, src := range in.files {
					if _, _, err := parseFile(path, src, parentUnknown, 0, DefaultMaxDepth); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkLoad measures Load: reading the files, following includes
// (globs included) and parsing.
func BenchmarkLoad(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(in.loadSize)
			defer measureCPU(b, in.loadSize)()
			for b.Loop() {
				if cfg := Load(in.main, Options{}); cfg.Syntax || len(cfg.Files) != in.loaded {
					b.Fatalf("%v", cfg.Diagnostics)
				}
			}
		})
	}
}
