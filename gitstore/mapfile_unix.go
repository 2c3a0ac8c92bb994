//go:build unix

package gitstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path read-only: its pages are read as they are touched, and
// shared with the page cache (and with git's own mappings of the same file).
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() error { return nil }, nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	return data, func() error { return unix.Munmap(data) }, nil
}
