package regular

// nonblock is nothing under WebAssembly, which has no O_NONBLOCK and no
// FIFOs to wait on: a browser has no file system at all.
const nonblock = 0
