//go:build unix

package gitstore

import (
	"os"
	"path/filepath"
	"syscall"
)

// withBreakMutex runs fn holding an exclusive flock on <dir>/break, which the kernel releases
// when this process ends however it ends. The file itself stays: it is only ever locked.
func withBreakMutex(dir string, fn func()) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "break"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return
	}
	defer f.Close()
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	fn()
}

// linkCount is the number of names the file has.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
