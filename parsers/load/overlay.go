package load

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/proxylint/proxylint/parsers/envoy"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// source reads the files of a run: the disk, with Options.Overlay in place
// of the files it holds; only the overlay with Options.OverlayOnly.
type source struct {
	overlay map[string][]byte
	only    bool
	// envoyKept is where the load keeps the tree of a file found to be
	// Envoy's by looking, for its read (envoy.Kept).
	envoyKept *envoy.Kept
}

func (o Options) source() source { return source{o.Overlay, o.OverlayOnly, o.envoyKept} }

// errNotGiven says that a file the run reads is not in an OverlayOnly overlay.
var errNotGiven = errors.New("not among the files given")

// overlaid returns the overlay's content for the file at path, looked up
// by its absolute path and then by its real path.
func (s source) overlaid(path string) ([]byte, bool) {
	if len(s.overlay) == 0 {
		return nil, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	if src, ok := s.overlay[abs]; ok {
		return src, true
	}
	if s.only {
		return nil, false
	}
	if real := realPath(abs); real != "" && real != abs {
		src, ok := s.overlay[real]
		return src, ok
	}
	return nil, false
}

// read reads the file at path, at most max bytes: the overlay's content,
// else the regular file on the disk.
func (s source) read(path string, max int64) ([]byte, error) {
	if src, ok := s.overlaid(path); ok {
		if max > 0 && int64(len(src)) > max {
			return nil, fmt.Errorf("file too large (more than %d bytes; see --max-file-size)", max)
		}
		return src, nil
	}
	if s.only {
		return nil, errNotGiven
	}
	return ReadRegular(path, max)
}

// head returns the first n bytes of the file at path (nil when it cannot
// be read).
func (s source) head(path string, n int) []byte {
	if src, ok := s.overlaid(path); ok {
		return src[:min(n, len(src))]
	}
	if s.only {
		return nil
	}
	return readHead(path, n)
}

// real is the identity of the file at path: its real path, or for a file
// only the overlay holds, its absolute path.
func (s source) real(path string) string {
	if s.only {
		if _, ok := s.overlaid(path); !ok {
			return ""
		}
	} else if real := realPath(path); real != "" {
		return real
	}
	if _, ok := s.overlaid(path); ok {
		abs, _ := filepath.Abs(path)
		return abs
	}
	return ""
}

// nginxFS is the file system the nginx reader reads: the disk, or the
// overlay over it.
func (s source) nginxFS() nginx.FS {
	if s.only {
		return &nginx.MemFS{Files: s.overlay, Origin: "the files given"}
	}
	if len(s.overlay) == 0 {
		return nil
	}
	return &nginx.MemFS{Files: s.overlay, Fallback: true}
}
