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

// lstatAt stats name inside the open directory dir without following a symlink; resolving
// one component instead of a whole path is most of a clean snapshot's saving.
func lstatAt(dir *os.File, dirPath, name string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileStat{}, &os.PathError{Op: "lstat", Path: dirPath + "/" + name, Err: err}
	}
	return fromStatT(&st), nil
}

func fromStatT(st *unix.Stat_t) fileStat {
	return fileStat{
		mode: unixMode(st.Mode), size: st.Size,
		mtimeSec: int64(st.Mtim.Sec), mtimeNsec: int64(st.Mtim.Nsec),
		ctimeSec: int64(st.Ctim.Sec), ctimeNsec: int64(st.Ctim.Nsec),
		ino: st.Ino, dev: st.Dev, uid: st.Uid, gid: st.Gid,
	}
}
