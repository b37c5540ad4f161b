//go:build !unix

package main

import (
	"errors"
	"io"
	"os"
)

// writeDescriptor: descriptors are named by path only on Unix systems.
func writeDescriptor(fd int, _ func(io.Writer) error) error {
	return errors.New("descriptors are written only as standard output and standard error here")
}

// writeInPlace opens the device at path and writes to it.
func writeInPlace(path string, write func(io.Writer) error) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

// ownerOf: ownership is not kept on systems without Unix owners.
func ownerOf(os.FileInfo) (uid, gid int) { return -1, -1 }

// linkCount: the names of a file are not counted here.
func linkCount(os.FileInfo) (links uint64, ok bool) { return 0, false }
