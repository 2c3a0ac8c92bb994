package snapshots

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openedDir is a directory read with raw system calls: os.File would add fcntl and epoll
// calls per directory, which cost a clean snapshot of a large tree more than the reading.
type openedDir struct {
	fd   int
	path string
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

func (d *openedDir) close() { unix.Close(d.fd) }

// list returns the entries other than "." and "..", using buf for the system call.
func (d *openedDir) list(buf []byte) ([]dirent, error) {
	var out []dirent
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
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, &os.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
		}
		return fromStatT(&st), nil
	}
}
