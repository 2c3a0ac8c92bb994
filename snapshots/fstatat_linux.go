//go:build linux && !amd64 && !arm64

package snapshots

import "golang.org/x/sys/unix"

// fstatat is lstat of name in dirfd, or of dir/name when dir is set.
func fstatat(dirfd int, dir, name string, st *unix.Stat_t, _ bool) error {
	if dir != "" {
		name = dir + "/" + name
	}
	return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}
