package snapshots

import (
	"os"
	"syscall"
)

func lstat(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return fileStat{}, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fileStat{
		mode: unixMode(uint32(st.Mode)), size: st.Size,
		mtimeSec: st.Mtimespec.Sec, mtimeNsec: st.Mtimespec.Nsec,
		ctimeSec: st.Ctimespec.Sec, ctimeNsec: st.Ctimespec.Nsec,
		ino: st.Ino,
	}, nil
}
