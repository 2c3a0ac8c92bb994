package gitstore

import (
	"os"
	"strings"
)

// repoEnvVars are the variables that point git at a repository, a worktree or an index. A
// git-loop run from a git hook, or as `git --git-dir=… loop`, inherits them; passed on to a
// git child that works elsewhere (a scratch worktree, a scratch index), they would make it
// act on the user's repository instead.
var repoEnvVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
}

// UnsetGitEnv removes the variables that point git at a repository from this process's
// environment, for a command that works in a repository of its own (the demo).
func UnsetGitEnv() {
	for _, v := range repoEnvVars {
		os.Unsetenv(v)
	}
}

// CleanGitEnv is the process environment without the variables that point git at a
// repository, for git children that must find theirs from their own directory (or flags).
func CleanGitEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, v := range repoEnvVars {
			if name == v {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
