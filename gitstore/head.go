package gitstore

import (
	"errors"
	"fmt"
)

// ResolveHeadAt resolves HEAD of the repository whose git directory is gitDir (used for
// nested repositories and submodules, which are not opened as Repos). It returns ZeroHash
// and no error for an unborn branch. It reads refs exactly as a Repo does (loose, then
// packed-refs; per-worktree refs in gitDir, the rest in the common dir).
func ResolveHeadAt(gitDir string) (Hash, error) {
	common, err := commonDir(gitDir)
	if err != nil {
		return ZeroHash, err
	}
	r := &Repo{GitDir: gitDir, CommonDir: common}
	h, err := r.Head()
	if err != nil {
		return ZeroHash, fmt.Errorf("resolve HEAD in %q: %w", gitDir, err)
	}
	return h, nil
}

// Head returns the commit HEAD points to, or ZeroHash with a nil error when HEAD names a branch
// that has no commits yet (an unborn branch, as right after `git init`).
func (r *Repo) Head() (Hash, error) {
	h, err := r.ReadRef("HEAD")
	if errors.Is(err, ErrRefNotFound) {
		if _, target, rerr := r.readRawRef("HEAD"); rerr == nil && target != "" {
			return ZeroHash, nil // HEAD itself exists: its branch is unborn
		}
	}
	return h, err
}

// HeadBranch returns the full name of the ref HEAD points to ("refs/heads/main"), or ""
// when HEAD is detached or unreadable.
func (r *Repo) HeadBranch() string {
	_, target, err := r.readRawRef("HEAD")
	if err != nil {
		return ""
	}
	return target
}
