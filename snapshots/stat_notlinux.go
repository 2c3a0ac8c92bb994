//go:build !linux

package snapshots

import (
	"os"
	"path/filepath"
)

// lstatAt stats name inside directory dir (by path on systems without fstatat in syscall).
func lstatAt(_ *os.File, dirPath, name string) (fileStat, error) {
	return lstat(filepath.Join(dirPath, name))
}
