package snapshots

import (
	"os"

	"golang.org/x/sys/unix"
)

func lstat(path string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileStat{}, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fromStatT(&st), nil
}

func fromStatT(st *unix.Stat_t) fileStat {
	return fileStat{
		mode: unixMode(st.Mode), size: st.Size,
		mtimeSec: int64(st.Mtim.Sec), mtimeNsec: int64(st.Mtim.Nsec),
		ctimeSec: int64(st.Ctim.Sec), ctimeNsec: int64(st.Ctim.Nsec),
		ino: st.Ino, dev: st.Dev,
	}
}
