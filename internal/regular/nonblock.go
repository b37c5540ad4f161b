//go:build !wasm

package regular

import "syscall"

// nonblock opens a FIFO without waiting for a writer.
const nonblock = syscall.O_NONBLOCK
