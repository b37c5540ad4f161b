//go:build unix

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// writeDescriptor writes to a descriptor the process holds (/dev/fd/N).
func writeDescriptor(fd int, write func(io.Writer) error) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return fmt.Errorf("descriptor %d is not open", fd)
	}
	return write(fdWriter(fd))
}

// writeInPlace opens the FIFO or device at path, without blocking on a
// FIFO nobody reads and without making a terminal the controlling one,
// and writes to it.
func writeInPlace(path string, write func(io.Writer) error) (err error) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ENXIO) {
		return errors.New("no process reads this named pipe")
	}
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFCHR {
		_ = unix.Close(fd)
		return errors.New("changed while it was opened; nothing written")
	}
	// Written in blocking mode, as a shell's redirection would.
	if err := unix.SetNonblock(fd, false); err != nil {
		_ = unix.Close(fd)
		return err
	}
	f := os.NewFile(uintptr(fd), path)
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

// fdWriter writes to a descriptor the process was given, without taking
// it over (an *os.File would close it when collected).
type fdWriter int

func (w fdWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := unix.Write(int(w), p[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// ownerOf is the owner and group of the file fi describes, to keep on the
// file that replaces it; -1 when they cannot be kept (not root).
func ownerOf(fi os.FileInfo) (uid, gid int) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
		return int(st.Uid), int(st.Gid)
	}
	return -1, -1
}

// linkCount is how many names (hard links) the file fi describes has;
// ok is false where it is unknown.
func linkCount(fi os.FileInfo) (links uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true //nolint:unconvert // a uint32 on some platforms
}
