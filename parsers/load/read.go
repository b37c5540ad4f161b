package load

import (
	"os"

	"github.com/proxylint/proxylint/internal/regular"
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
// when max <= 0), without blocking on a FIFO (package internal/regular).
func ReadRegular(path string, max int64) ([]byte, error) { return regular.Read(path, max) }

// OpenRegular opens path for reading without blocking and returns it only
// when it is a regular file.
func OpenRegular(path string) (*os.File, error) { return regular.Open(path) }
