//go:build unix

package sessionlog

import "syscall"

// openNonblock opens a file without waiting for a writer (a FIFO), where that can happen.
const openNonblock = syscall.O_NONBLOCK
