package gitstore

import (
	"os"
	"path/filepath"
)

// IsGitDir reports whether dir looks like a git directory the way git checks one before
// treating a directory as a repository: a HEAD file, refs, and objects (or, for a linked
// worktree's git dir, a commondir file).
func IsGitDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	for _, name := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// NestedGitDir returns the git directory of the repository whose worktree top is dir, from
// dir/.git (a directory, or a file naming one), or "" when dir/.git is not a valid
// repository: git then treats dir as an ordinary directory.
func NestedGitDir(dir string) string {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		if IsGitDir(dotgit) {
			return dotgit
		}
		return ""
	case fi.Mode().IsRegular():
		gd, err := readGitFile(dotgit)
		if err != nil || !IsGitDir(gd) {
			return ""
		}
		return gd
	}
	return ""
}
