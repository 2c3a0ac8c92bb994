package snapshots

import "io/fs"

// fileStat is the subset of lstat(2) that decides whether a cached hash is still good, the
// fields git itself compares for its index.
type fileStat struct {
	mode                fs.FileMode // type bits and permissions, as Go reports them
	size                int64
	mtimeSec, mtimeNsec int64
	ctimeSec, ctimeNsec int64
	ino                 uint64
	dev                 uint64 // not compared for files (git does not either); see listedDir
}

func (s *fileStat) isRegular() bool { return s.mode.IsRegular() }
func (s *fileStat) isSymlink() bool { return s.mode&fs.ModeSymlink != 0 }
func (s *fileStat) isDir() bool     { return s.mode.IsDir() }

// sameStat reports whether two stats describe an unchanged file.
func sameStat(a, b *fileStat) bool {
	return a.size == b.size && a.mtimeSec == b.mtimeSec && a.mtimeNsec == b.mtimeNsec &&
		a.ctimeSec == b.ctimeSec && a.ctimeNsec == b.ctimeNsec && a.ino == b.ino &&
		a.mode.Type() == b.mode.Type()
}
