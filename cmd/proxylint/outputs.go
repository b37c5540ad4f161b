package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/report"
)

// output is one report a run writes: a format, to a file or ("") to
// standard output; flag names it for messages ("--output",
// "--format sarif=FILE").
type output struct{ format, file, flag string }

// appendFlag collects every value of a repeatable flag as given.
type appendFlag struct{ vals *[]string }

func (a appendFlag) String() string     { return "" }
func (a appendFlag) Set(s string) error { *a.vals = append(*a.vals, s); return nil }

// parseOutputs reads the --format NAME[=FILE] flags and --output: a
// format without a file writes to --output, or to standard output. At
// most one report goes to standard output, and each file gets one report.
func (f *lintFlags) parseOutputs(names []string) error {
	args := f.formatArgs
	if len(args) == 0 {
		args = []string{"text"}
	}
	f.outputs = nil
	var toStdout string
	byFile := map[string]string{}
	for _, a := range args {
		name, file, hasFile := strings.Cut(a, "=")
		if !contains(names, name) {
			if near := suggest.Nearest(strings.ToLower(name), names, 2); near != "" {
				return fmt.Errorf("--format %q: did you mean %q? (want %s)", name, near, strings.Join(names, ", "))
			}
			return fmt.Errorf("--format %q: want %s", name, strings.Join(names, ", "))
		}
		if hasFile && file == "" {
			return fmt.Errorf("--format %s=: name the file to write, as in --format %s=FILE", name, name)
		}
		flagName := "--format " + name
		if !hasFile {
			file, flagName = f.output, "--output"
		}
		if file != "" && leadsToStdout(file) {
			// --output /dev/stdout is standard output, with one
			// report at most.
			file = ""
		}
		switch {
		case file == "" && toStdout != "":
			return fmt.Errorf("--format %s and --format %s both write to standard output; give one a file with --format NAME=FILE", toStdout, name)
		case file == "":
			toStdout = name
		case byFile[file] != "":
			return fmt.Errorf("--format %s and --format %s both write to %s; give each its own file", byFile[file], name, file)
		default:
			byFile[file] = name
		}
		f.outputs = append(f.outputs, output{name, file, flagName})
	}
	f.format = f.outputs[0].format
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// writeReports writes every report the flags ask for, with the writers of
// the registry, each where its path leads (writeDestination): never over
// one of inputs, the files the run read, nor through a link inside the
// repository to outside it.
func writeReports[T any](formats report.Formats[T], f *lintFlags, in T, inputs []string, stdout, stderr io.Writer, getenv func(string) string) error {
	wd, _ := os.Getwd()
	repo := repository(f, wd)
	for _, o := range f.outputs {
		format, ok := formats.Lookup(o.format)
		if !ok {
			return fmt.Errorf("--format %q: want %s", o.format, strings.Join(formats.Names(), " or "))
		}
		if err := writeReport(format, o, f, in, inputs, repo, stdout, stderr, getenv); err != nil {
			return err
		}
	}
	return nil
}

func writeReport[T any](format report.Format[T], o output, f *lintFlags, in T, inputs []string, repo string, stdout, stderr io.Writer, getenv func(string) string) error {
	if o.file == "" {
		if err := format.Write(stdout, in, format.Color && useColor(f, stdout, getenv)); err != nil {
			return fmt.Errorf("writing the %s report: %w", o.format, err)
		}
		return nil
	}
	d, err := resolveDestination(o.file, repo)
	if err == nil {
		// A report to /dev/stdout is coloured as standard output is.
		toFile := d.kind != destFD || d.fd > 2
		err = writeDestination(d, stdout, stderr, inputs, func(w io.Writer) error {
			return format.Write(w, in, format.Color && useColorIn(f, w, toFile, getenv))
		})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.flag, namedError(o.file, err))
	}
	return nil
}

// namedError says what went wrong writing to path, naming it once.
func namedError(path string, err error) error {
	err = unwrapPath(err)
	if strings.HasPrefix(err.Error(), path+" ") {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// leadsToStdout reports whether the links from path lead to standard
// output (/dev/stdout, /proc/self/fd/1).
func leadsToStdout(path string) bool {
	d, err := resolveDestination(path, "")
	return err == nil && d.kind == destFD && d.fd == 1
}

// flagError says what the flag package found wrong in the form flags are
// written in --help: "--quiet", never Go's single-dash "-quiet" ("-f" and
// "-h" keep their one dash), and adds a "did you mean" to an unknown
// flag.
func flagError(fs *flag.FlagSet, err error) error {
	msg := dashes(err.Error())
	const undefined = "flag provided but not defined: "
	rest, ok := strings.CutPrefix(msg, undefined)
	if !ok {
		return errors.New(msg)
	}
	name := strings.TrimLeft(rest, "-")
	var names []string
	fs.VisitAll(func(fl *flag.Flag) {
		if len(fl.Name) > 1 {
			names = append(names, fl.Name)
		}
	})
	// A name of a letter or two is no misspelling of a long flag: "-x"
	// is not "--fix".
	if near := suggest.Nearest(name, names, min(2, len(name)/3)); near != "" {
		return fmt.Errorf("%s; did you mean --%s?", msg, near)
	}
	return errors.New(msg)
}

// flagName matches a flag as the flag package's messages name it: after
// "defined: ", "argument: ", "for " or "for flag ", with one dash.
// It is compiled when a message first needs it, not at every start.
var flagName = lazyre.New(`(defined: |argument: |for (?:flag )?)-([^\s:]+)`)

// dashes writes the flags a message of the flag package names with two
// dashes, as they are documented, those of one letter with one.
func dashes(msg string) string {
	re := flagName()
	return re.ReplaceAllStringFunc(msg, func(m string) string {
		sub := re.FindStringSubmatch(m)
		name := strings.TrimLeft(sub[2], "-")
		if len([]rune(name)) == 1 {
			return sub[1] + "-" + name
		}
		return sub[1] + "--" + name
	})
}

// countStdin counts the paths that name standard input.
func countStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == load.StdinPath {
			n++
		}
	}
	return n
}

// readStdin reads standard input whole, for "-" among the paths, up to
// --max-file-size (what one file may hold): more is an error, and the
// memory taken stays within about twice the limit (readCapped).
func readStdin(f *lintFlags) (*load.Stdin, error) {
	if f.stdin == nil {
		return nil, errors.New("standard input (\"-\") cannot be read here")
	}
	max := f.fileLimit()
	data, err := readCapped(f.stdin, max)
	if errors.Is(err, errTooLarge) {
		name := f.stdinFilename
		if name == "" {
			name = load.DefaultStdinName
		}
		return nil, fmt.Errorf("%s: standard input is too large (more than %d bytes; see --max-file-size)", name, max)
	}
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	return &load.Stdin{Data: data, Name: f.stdinFilename}, nil
}

var errTooLarge = errors.New("too large")

// stdinChunk is the size of the pieces readCapped reads a stream in.
const stdinChunk = 1 << 20

// readCapped reads r to its end, at most max bytes (errTooLarge past
// them). A regular file is read into one buffer of its size; a stream in
// pieces that are joined once it ends, so that the memory taken is at most
// twice what was read, never the doubling of a growing buffer, and an
// endless stream stops at the limit.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	var chunks [][]byte
	var total int64
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > max {
				return nil, errTooLarge
			}
			buf := make([]byte, fi.Size()+1)
			k, err := io.ReadFull(f, buf)
			if int64(k) <= fi.Size() && (err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
				return buf[:k], nil
			}
			if err != nil {
				return nil, err
			}
			// The file grew while it was read: read on.
			chunks, total = [][]byte{buf}, int64(k)
		}
	}
	for {
		n := int64(stdinChunk)
		if left := max + 1 - total; left < n {
			n = left
		}
		buf := make([]byte, n)
		k, err := io.ReadFull(r, buf)
		total += int64(k)
		if k > 0 {
			chunks = append(chunks, buf[:k])
		}
		if total > max {
			return nil, errTooLarge
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	data := make([]byte, 0, total)
	for i, c := range chunks {
		data = append(data, c...)
		chunks[i] = nil
	}
	return data, nil
}

// repoRoot is the directory SARIF and GitHub paths are relative to:
// --root, else the nearest directory at or above the working directory
// that holds .git (a checkout's top level), else the working directory.
func repoRoot(f *lintFlags, wd string) string {
	if f.root != "" {
		if abs, err := filepath.Abs(f.root); err == nil {
			return abs
		}
		return f.root
	}
	for dir := wd; dir != ""; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	return wd
}
