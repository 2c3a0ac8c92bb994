package snapshots

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openedDir is a directory read with raw system calls: os.File would add fcntl and epoll
// calls per directory, which cost a clean snapshot of a large tree more than the reading.
type openedDir struct {
	fd    int
	path  string
	local bool // on a local file system (listingDevice): lstat may use a raw system call
}

// openDir opens a directory by path; below the worktree's top (follow false) a symlink that
// replaced the directory is not followed, so the walk never leaves the worktree.
func openDir(path string, follow bool) (*openedDir, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &openedDir{fd: fd, path: path}, nil
}

// openSub opens subdirectory name relative to d, so the kernel resolves one component
// instead of the whole path again. A symlink that replaced the directory is not followed.
func (d *openedDir) openSub(name, path string) (*openedDir, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &openedDir{fd: fd, path: path}, nil
}

func (d *openedDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
	}
}

// list appends to out the entries other than "." and "..", using buf for the system call.
func (d *openedDir) list(buf []byte, out []dirent) ([]dirent, error) {
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "readdirent", Path: d.path, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		out = parseDirents(buf[:n], out)
	}
}

// parseDirents decodes linux_dirent64 records: ino u64, off i64, reclen u16, type u8, name.
// Names are substrings of one copy of the buffer: one allocation per read, not per entry.
func parseDirents(b []byte, out []dirent) []dirent {
	all := string(b)
	base := len(b)
	for len(b) >= 19 {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < 19 || reclen > len(b) {
			break
		}
		typ := b[18]
		start := base - len(b) + 19
		nameLen := 0
		for nameLen < reclen-19 && b[19+nameLen] != 0 {
			nameLen++
		}
		b = b[reclen:]
		name := all[start : start+nameLen]
		if name == "." || name == ".." {
			continue
		}
		out = append(out, dirent{name: name, kind: direntKind(typ)})
	}
	return out
}

func direntKind(t byte) entryKind {
	switch t {
	case unix.DT_DIR:
		return kindDir
	case unix.DT_REG:
		return kindFile
	case unix.DT_LNK:
		return kindSymlink
	case unix.DT_UNKNOWN:
		return kindUnknown
	}
	return kindOther
}

// lstat stats an entry of the directory without following symlinks.
func (d *openedDir) lstat(name string) (fileStat, error) {
	var st unix.Stat_t
	for {
		var err error
		if d.fd < 0 {
			err = fstatat(unix.AT_FDCWD, d.path, name, &st, d.local)
		} else {
			err = fstatat(d.fd, "", name, &st, d.local)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, &os.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
		}
		return fromStatT(&st), nil
	}
}

// pathDir is a directory the walk does not open, because its listing came from the stat
// cache: its entries are examined by path.
func pathDir(path string) *openedDir { return &openedDir{fd: -1, path: path} }

// canOpenSub reports whether subdirectories can be opened relative to d.
func (d *openedDir) canOpenSub() bool { return d.fd >= 0 }

// stat is fstat of the opened directory, taken before it is listed (see listedDir).
func (d *openedDir) stat() (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return fileStat{}, &os.PathError{Op: "fstat", Path: d.path, Err: err}
	}
	return fromStatT(&st), nil
}

// listingFileSystems are the local file systems whose directory mtime is known to change
// whenever an entry is added, removed or renamed, so an unchanged directory's listing can be
// reused. Network and FUSE file systems may cache directory attributes and are left out.
var listingFileSystems = map[int64]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x794C7630: true, // overlayfs
	0x2FC12FC1: true, // zfs
	0xF2F52010: true, // f2fs
	0xCA451A4E: true, // bcachefs
}

// listingDevice returns the device of the worktree's top directory when it lies on one of
// listingFileSystems: only directories on that device reuse cached listings.
func listingDevice(top string) (uint64, bool) {
	var fs unix.Statfs_t
	if err := unix.Statfs(top, &fs); err != nil || !listingFileSystems[int64(fs.Type)] {
		return 0, false
	}
	var st unix.Stat_t
	if err := unix.Stat(top, &st); err != nil {
		return 0, false
	}
	return st.Dev, true
}
