package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Default limits on what one run reads (Options.MaxFileSize,
// Options.MaxTotalSize, Options.MaxIncludes; --max-file-size,
// --max-total-size, --max-includes).
const (
	DefaultMaxFileSize  = 64 << 20
	DefaultMaxTotalSize = 256 << 20
	DefaultMaxIncludes  = 10000
)

// ReadRegular reads the regular file at path, at most max bytes (no limit
// when max <= 0). It opens the file without blocking and checks what it
// opened before reading, so that a FIFO never hangs the run and a device
// such as /dev/zero is refused instead of read until memory runs out.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if max > 0 && fi.Size() > max {
		return nil, fmt.Errorf("file too large (%d bytes; at most %d are read, see --max-file-size)", fi.Size(), max)
	}
	limit := int64(-1)
	if max > 0 {
		limit = max + 1
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit)
	}
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(src)) > max {
		return nil, fmt.Errorf("file too large (more than %d bytes; see --max-file-size)", max)
	}
	return src, nil
}

// OpenRegular opens path for reading without blocking and returns it only
// when it is a regular file: FIFOs, devices, sockets and directories are
// refused with an error naming the path and what it is.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(fi)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

func regular(fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	default:
		return fmt.Errorf("not a regular file (%s)", fileType(m))
	}
}

func fileType(m fs.FileMode) string {
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
