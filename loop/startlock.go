package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/git-loop/git-loop/gitstore"
)

// startLockPath is the lock file Start holds in a worktree's own git dir, so that two starts
// in one worktree cannot both find it free.
func startLockPath(gitDir string) string {
	return filepath.Join(gitDir, "loop", "start.lock")
}

// lockStart creates r's start lock exclusively (O_CREAT|O_EXCL) and returns the function that
// removes it. A lock already there means another start is running, or one crashed: it is
// reported as ErrBusy with the file's path, not waited on.
func lockStart(r *gitstore.Repo) (release func(), err error) {
	path := startLockPath(r.GitDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, fmt.Errorf("start loop: create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: another `git loop start` is running here (%s exists); remove it if no git loop start is running", ErrBusy, path)
	}
	if err != nil {
		return nil, fmt.Errorf("start loop: take lock %s: %w", path, err)
	}
	_, werr := f.WriteString(strconv.Itoa(os.Getpid()) + "\n") // for whoever finds it stale
	if cerr := f.Close(); werr == nil && cerr != nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return nil, fmt.Errorf("start loop: write lock %s: %w", path, werr)
	}
	return func() { os.Remove(path) }, nil
}
