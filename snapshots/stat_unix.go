//go:build linux || darwin

package snapshots

import (
	"io/fs"
	"syscall"
)

// unixMode converts st_mode to Go's FileMode.
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}
