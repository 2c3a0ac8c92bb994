//go:build !linux && !darwin

package snapshots

import "os"

// lstat on systems without a Unix stat: only mode, size and mtime are compared, so a change
// that keeps all three (rare) is seen only after the next racy-window rehash.
func lstat(path string) (fileStat, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStat{}, err
	}
	t := fi.ModTime()
	return fileStat{mode: fi.Mode(), size: fi.Size(), mtimeSec: t.Unix(), mtimeNsec: int64(t.Nanosecond())}, nil
}
