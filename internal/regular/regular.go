// Package regular opens and reads configuration files safely: regular
// files only, opened without blocking, and read up to a size limit, so that
// a FIFO never hangs a run and a device such as /dev/zero is refused instead
// of read until memory runs out.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Open opens path for reading without blocking and returns it only when it
// is a regular file: FIFOs, devices, sockets and directories are refused
// with an error that says what the path is.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = Check(fi, 0)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the regular file at path, at most max bytes (no limit when
// max <= 0).
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := Check(fi, max); err != nil {
		return nil, err
	}
	// One allocation for a file that does not grow while it is read.
	src := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(src[len(src):cap(src)])
		src = src[:len(src)+n]
		if errors.Is(err, io.EOF) {
			return src, nil
		}
		if err != nil {
			return nil, err
		}
		if max > 0 && int64(len(src)) > max {
			return nil, fmt.Errorf("file too large (more than %d bytes; see --max-file-size)", max)
		}
		if len(src) == cap(src) {
			src = append(src, 0)[:len(src)]
		}
	}
}

// Stat checks, without opening it, that path is a regular file of at most
// max bytes (no limit when max <= 0).
func Stat(path string, max int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return Check(fi, max)
}

// Check says why fi cannot be read as a configuration of at most max bytes
// (no limit when max <= 0), or nil.
func Check(fi fs.FileInfo, max int64) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		if max > 0 && fi.Size() > max {
			return fmt.Errorf("file too large (%d bytes; at most %d are read, see --max-file-size)", fi.Size(), max)
		}
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	default:
		return fmt.Errorf("not a regular file (%s)", FileType(m))
	}
}

// FileType names what a non-regular file is.
func FileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return m.Type().String()
}
