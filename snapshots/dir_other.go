//go:build !linux

package snapshots

import (
	"os"
	"path/filepath"
)

// openedDir reads a directory through package os on systems without the raw Linux path.
type openedDir struct {
	path  string
	local bool // unused here (see the Linux version)
}

// openDir opens a directory by path; with follow false a symlink is refused.
func openDir(path string, follow bool) (*openedDir, error) {
	stat := os.Stat
	if !follow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrInvalid}
	}
	return &openedDir{path: path}, nil
}

func (d *openedDir) openSub(_, path string) (*openedDir, error) { return openDir(path, false) }

func (d *openedDir) close() {}

func (d *openedDir) list(_ []byte, out []dirent) ([]dirent, error) {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		k := kindOther
		switch {
		case e.IsDir():
			k = kindDir
		case e.Type().IsRegular():
			k = kindFile
		case e.Type()&os.ModeSymlink != 0:
			k = kindSymlink
		}
		out = append(out, dirent{name: e.Name(), kind: k})
	}
	return out, nil
}

func (d *openedDir) lstat(name string) (fileStat, error) {
	return lstat(filepath.Join(d.path, name))
}

// pathDir is a directory examined by path (see the Linux version).
func pathDir(path string) *openedDir { return &openedDir{path: path} }

func (d *openedDir) canOpenSub() bool { return true }

func (d *openedDir) stat() (fileStat, error) { return lstat(d.path) }

// listingDevice: cached listings are a Linux feature (see dir_linux.go).
func listingDevice(string) (uint64, bool) { return 0, false }
