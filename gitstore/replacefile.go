package gitstore

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ResolveLink follows a symlink at path to the file it names, so that replacing the file
// rewrites that file rather than turning the link into a file. A path that is not a symlink
// (or does not exist) is returned as is; a link whose target cannot be reached is an error.
func ResolveLink(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("write %s: %s is a symlink to a file that cannot be reached (%w); fix the link or remove it", path, path, err)
	}
	return target, nil
}

// ReplaceFile writes data to path as a person's file is replaced: atomically (a temporary
// file in the same directory, synced, then renamed over it, so a reader sees the old content
// or the new), following a symlink to write the file it names, and keeping an existing
// file's permission bits; a new file gets perm. The directory must exist. Unlike
// WriteFileAtomic, which is for git-loop's own files under the git dir, it is for files the
// user names (reports, agents' settings).
func ReplaceFile(path string, data []byte, perm fs.FileMode) error {
	target, err := ResolveLink(path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	if err := replaceFile(target, data, perm); err != nil {
		return fmt.Errorf("write %s: %w; check that the directory exists and is writable", path, err)
	}
	return nil
}

func replaceFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable where directories sync
		d.Sync()
		d.Close()
	}
	return nil
}
