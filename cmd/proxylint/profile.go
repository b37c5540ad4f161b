package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"runtime/pprof"
	"strings"
)

// profiles are --cpuprofile and --memprofile: Go's pprof profiles of a
// run, which a user whose configuration takes long or much memory to lint
// can send with a report (go tool pprof reads them).
type profiles struct {
	cpu, mem string
}

func (p *profiles) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "")
	fs.StringVar(&p.mem, "memprofile", "", "")
}

// memProfileAsked reports whether args may ask for --memprofile: any
// argument that names the flag, in either of its spellings, with or without
// "=FILE". A run that does not ask needs no allocation sampling, which
// costs every run about 2% of its CPU time (a stack unwound every 512 KB
// allocated).
func memProfileAsked(args []string) bool {
	for _, a := range args {
		a = strings.TrimPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		if a == "memprofile" || strings.HasPrefix(a, "memprofile=") {
			return true
		}
	}
	return false
}

// check refuses an empty file name, and a file that another output of the
// run (a report, the baseline written, the other profile) writes too.
func (p *profiles) check(f *lintFlags, given map[string]bool) error {
	writers := map[string]string{}
	for _, o := range f.outputs {
		if o.file != "" {
			writers[o.file] = "--format " + o.format
		}
	}
	if f.writeBaseline != "" {
		writers[f.writeBaseline] = "--write-baseline"
	}
	for _, v := range []struct{ flag, file string }{{"cpuprofile", p.cpu}, {"memprofile", p.mem}} {
		if v.file == "" {
			if given[v.flag] {
				return fmt.Errorf("--%s=: name the file to write, as in --%s=FILE", v.flag, v.flag)
			}
			continue
		}
		if other, ok := writers[v.file]; ok {
			return fmt.Errorf("%s and --%s both write to %s; give each its own file", other, v.flag, v.file)
		}
		writers[v.file] = "--" + v.flag
	}
	return nil
}

// profiling is a run's profiles while they are taken.
type profiling struct {
	profiles
	// cpuData holds the CPU profile until the run ends: the file is
	// written whole at the end, as the reports are.
	cpuData bytes.Buffer
	// reads are the files the run reads, which no profile replaces.
	reads []string
}

// startProfiles starts the CPU profile of a run that reads paths.
func startProfiles(p profiles, paths []string) (*profiling, error) {
	r := &profiling{profiles: p, reads: paths}
	if p.cpu != "" {
		if err := pprof.StartCPUProfile(&r.cpuData); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return r, nil
}

// read records the files the run has read (inputs), which stop will not
// replace.
func (r *profiling) read(files []string) { r.reads = files }

// stop ends the CPU profile and writes the profiles asked for, each through
// the checks every report goes through (resolveDestination,
// writeDestination): a device or FIFO is written in place, a regular file
// through a temporary file renamed over it, never over a file the run
// reads. The heap profile is taken now, at the end of the run:
// what was allocated where during the whole run (alloc_space,
// alloc_objects), and what was in use at the last garbage collection
// (inuse_space). When a profile cannot be written, the run's exit code
// becomes exitError.
func (r *profiling) stop(stdout, stderr io.Writer, code *int) {
	if r.cpu != "" {
		pprof.StopCPUProfile()
		err := r.write(r.cpu, stdout, stderr, func(w io.Writer) error {
			_, err := w.Write(r.cpuData.Bytes())
			return err
		})
		if err != nil {
			fmt.Fprintf(stderr, "proxylint: --cpuprofile: %v\n", err)
			*code = exitError
		}
	}
	if r.mem != "" {
		err := r.write(r.mem, stdout, stderr, func(w io.Writer) error {
			return pprof.Lookup("heap").WriteTo(w, 0)
		})
		if err != nil {
			fmt.Fprintf(stderr, "proxylint: --memprofile: %v\n", err)
			*code = exitError
		}
	}
}

// write writes one profile to path as a report is written.
func (r *profiling) write(path string, stdout, stderr io.Writer, write func(io.Writer) error) error {
	d, err := resolveDestination(path, "")
	if err != nil {
		return err
	}
	return writeDestination(d, stdout, stderr, r.reads, write)
}
