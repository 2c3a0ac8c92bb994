package snapshots

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/gitstore"
)

// isNestedRepo reports whether dir is the top of another repository (has a .git directory or
// a .git file), which git records as a gitlink rather than descending into.
func isNestedRepo(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// nestedHead resolves HEAD of the repository whose worktree is dir, reading its files
// directly (loose ref, then packed-refs).
func nestedHead(dir string) (gitstore.Hash, error) {
	if !isNestedRepo(dir) {
		return gitstore.ZeroHash, fmt.Errorf("%q is not checked out", dir)
	}
	_, gitDir, err := gitstore.FindGitDir(dir) // stops at dir: it has a .git
	if err != nil {
		return gitstore.ZeroHash, err
	}
	h, err := gitstore.ResolveHeadAt(gitDir)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	if h.IsZero() {
		return gitstore.ZeroHash, fmt.Errorf("no commit checked out")
	}
	return h, nil
}
