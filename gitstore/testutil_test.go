package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// refsGitEnvVars are the variables that would make git (or git-loop) look somewhere else than
// the test's repository, or use another identity.
var refsGitEnvVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_CEILING_DIRECTORIES",
	"XDG_CONFIG_HOME", "EMAIL",
}

// refsHermetic makes git and Open see only the test's configuration: HOME is a temporary
// directory, the system config is off and the global config sets a known identity. The
// settings are restored when the test ends (so tests using it cannot run in parallel).
func refsHermetic(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	cfg := "[user]\n\tname = Loop Tester\n\temail = loop@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"
	if err := os.WriteFile(global, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, k := range refsGitEnvVars {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("LC_ALL", "C")
}

// refsGitErr runs git in dir and returns its trimmed standard output.
func refsGitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// refsGit runs git in dir and fails the test on error.
func refsGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := refsGitErr(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// refsNewRepo initialises a repository in a new temporary directory (after refsHermetic) and
// opens it.
func refsNewRepo(t testing.TB) (*Repo, string) {
	t.Helper()
	dir := t.TempDir()
	refsGit(t, dir, "init", "-q")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// refsEmptyTree stores the empty tree and returns its name.
func refsEmptyTree(t testing.TB, r *Repo) Hash {
	t.Helper()
	h, err := r.WriteObject(TreeObject, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// refsCommitData is a commit object with the empty tree, an optional parent and a message.
func refsCommitData(parent Hash, msg string) []byte {
	var b strings.Builder
	b.WriteString("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n")
	if !parent.IsZero() {
		b.WriteString("parent " + parent.String() + "\n")
	}
	b.WriteString("author Loop Tester <loop@example.com> 1700000000 +0000\n")
	b.WriteString("committer Loop Tester <loop@example.com> 1700000000 +0000\n\n")
	b.WriteString(msg + "\n")
	return []byte(b.String())
}

// refsCommit stores a commit (empty tree, parent unless zero) and returns its name.
func refsCommit(t testing.TB, r *Repo, parent Hash, msg string) Hash {
	t.Helper()
	refsEmptyTree(t, r)
	h, err := r.WriteObject(CommitObject, refsCommitData(parent, msg))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// refsMustHash parses a hash printed by git.
func refsMustHash(t testing.TB, s string) Hash {
	t.Helper()
	h, err := ParseHash(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}
