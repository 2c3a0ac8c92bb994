package loop

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// startLockPath is the lock file Start holds in a worktree's own git dir, so that two starts
// in one worktree cannot both find it free.
func startLockPath(gitDir string) string {
	return filepath.Join(gitDir, "loop", "start.lock")
}

// lockStart takes r's start lock and returns the function that releases it. The lock is
// born with its owner's record (gitstore.LockPath), so one a killed start left is taken over;
// one a live start holds (or one that cannot be attributed) is reported as ErrBusy with its
// path and holder, not waited on.
func lockStart(r *gitstore.Repo) (release func(), err error) {
	path := startLockPath(r.GitDir)
	release, err = r.LockPath(strings.TrimSuffix(path, ".lock"))
	if errors.Is(err, gitstore.ErrLockHeld) {
		return nil, fmt.Errorf("%w: another `git loop start` is running here (%v)", ErrBusy, err)
	}
	if err != nil {
		return nil, fmt.Errorf("start loop: take lock %s: %w", path, err)
	}
	gitstore.StallAt("start-locked")
	return release, nil
}
