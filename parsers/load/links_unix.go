//go:build unix

package load

import (
	"os"
	"syscall"
)

// hardLinked reports whether the file fi describes has several names.
func hardLinked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
