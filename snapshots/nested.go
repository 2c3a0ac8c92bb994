package snapshots

import (
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
)

// isNestedRepo reports whether dir is the top of another repository (a valid .git directory
// or .git file), which git records as a gitlink rather than descending into. A stray or
// broken .git entry does not count, as in git.
func isNestedRepo(dir string) bool {
	return gitstore.NestedGitDir(dir) != ""
}

// nestedHead resolves HEAD of the repository whose worktree is dir.
func nestedHead(dir string) (gitstore.Hash, error) {
	gitDir := gitstore.NestedGitDir(dir)
	if gitDir == "" {
		return gitstore.ZeroHash, fmt.Errorf("%q is not checked out", dir)
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
