package snapshots

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// hermetic isolates git from the developer's configuration.
func hermetic(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, ".gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n"), 0o666)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_INDEX_FILE", "")
	os.Unsetenv("GIT_INDEX_FILE")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitEnv(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func gitEnv(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// oracleTree is what git makes of the worktree: add -A into a copy of the index, write-tree.
func oracleTree(t *testing.T, dir string) string {
	t.Helper()
	gitDir := git(t, dir, "rev-parse", "--absolute-git-dir")
	tmp := filepath.Join(t.TempDir(), "index")
	if data, err := os.ReadFile(filepath.Join(gitDir, "index")); err == nil {
		os.WriteFile(tmp, data, 0o666)
	}
	env := []string{"GIT_INDEX_FILE=" + tmp}
	if out, err := gitEnv(dir, env, "add", "-A"); err != nil {
		t.Fatalf("oracle git add -A: %v\n%s", err, out)
	}
	out, err := gitEnv(dir, env, "write-tree")
	if err != nil {
		t.Fatalf("oracle write-tree: %v\n%s", err, out)
	}
	return strings.TrimSpace(out)
}

// repoState is what a snapshot must never change.
func repoState(t *testing.T, dir string) string {
	gitDir := git(t, dir, "rev-parse", "--absolute-git-dir")
	idx, _ := os.ReadFile(filepath.Join(gitDir, "index"))
	head, _ := gitEnv(dir, nil, "rev-parse", "-q", "--verify", "HEAD")
	status := git(t, dir, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored")
	return string(idx) + "\x00" + head + "\x00" + status
}

// checkSnapshot asserts Take gives git's tree and leaves index, HEAD and status alone.
func checkSnapshot(t *testing.T, dir string) *Result {
	t.Helper()
	before := repoState(t, dir)
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Take(r)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	if after := repoState(t, dir); after != before {
		t.Fatalf("snapshot changed the index, HEAD or status")
	}
	want := oracleTree(t, dir)
	if res.Tree.String() != want {
		t.Errorf("tree %s, git says %s\nours:\n%s\ngit's:\n%s", res.Tree, want,
			git(t, dir, "ls-tree", "-r", "-t", res.Tree.String()), git(t, dir, "ls-tree", "-r", "-t", want))
	}
	if out, err := gitEnv(dir, nil, "cat-file", "-e", res.Tree.String()); err != nil {
		t.Errorf("tree not stored: %s", out)
	}
	return res
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

func newRepo(t *testing.T) string {
	t.Helper()
	hermetic(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	return dir
}

type fixture struct {
	name  string
	setup func(t *testing.T, dir string)
}

var fixtures = []fixture{
	{"empty repository", func(t *testing.T, dir string) {}},
	{"untracked files and empty dirs", func(t *testing.T, dir string) {
		write(t, dir, "a.txt", "a\n")
		write(t, dir, "d/e/f.txt", "f\n")
		os.MkdirAll(filepath.Join(dir, "empty/deeper"), 0o777)
	}},
	{"odd names", func(t *testing.T, dir string) {
		write(t, dir, "with space.txt", "1")
		write(t, dir, "with\ttab.txt", "2")
		write(t, dir, "latin1-\xe9\xff.txt", "3")
		write(t, dir, "dir.d/x", "4")
		write(t, dir, "dir/x", "5")
		write(t, dir, "dir-/x", "6")
		write(t, dir, "dir0", "7")
		write(t, dir, "-leading-dash", "8")
	}},
	{"committed, modified, deleted", func(t *testing.T, dir string) {
		write(t, dir, "keep.txt", "k")
		write(t, dir, "mod.txt", "m")
		write(t, dir, "del.txt", "d")
		write(t, dir, "sub/del2.txt", "d2")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "c")
		write(t, dir, "mod.txt", "changed")
		os.Remove(filepath.Join(dir, "del.txt"))
		os.RemoveAll(filepath.Join(dir, "sub"))
	}},
	{"gitignore rules", func(t *testing.T, dir string) {
		write(t, dir, ".gitignore", "*.log\n!keep.log\nbuild/\n/rooted.txt\nfoo/**/bar\n**/deep.tmp\n# comment\n\\#hash\ntrailing   \nnested/*\n!nested/inc/\n")
		for _, f := range []string{"a.log", "keep.log", "build/x", "sub/build/y", "rooted.txt", "sub/rooted.txt",
			"foo/bar", "foo/a/b/bar", "x/y/deep.tmp", "#hash", "trailing", "nested/out.txt", "nested/inc/in.txt", "ok.txt"} {
			write(t, dir, f, f)
		}
		write(t, dir, "sub/.gitignore", "!a.log\n*.txt\n")
		write(t, dir, "sub/a.log", "re-included")
		write(t, dir, "sub/b.txt", "ignored below")
		write(t, dir, "build/.gitignore", "!x\n")
		write(t, dir, ".git/info/exclude", "excluded-by-info\n")
		write(t, dir, "excluded-by-info", "x")
	}},
	{"core.excludesFile", func(t *testing.T, dir string) {
		ex := filepath.Join(t.TempDir(), "global-ignore")
		os.WriteFile(ex, []byte("*.global\n"), 0o666)
		git(t, dir, "config", "core.excludesFile", ex)
		write(t, dir, "a.global", "x")
		write(t, dir, "b.txt", "y")
	}},
	{"tracked files matching ignore patterns are kept", func(t *testing.T, dir string) {
		write(t, dir, "tracked.log", "t")
		write(t, dir, "ign/tracked.txt", "t")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "c")
		write(t, dir, ".gitignore", "*.log\nign/\n")
		write(t, dir, "tracked.log", "changed")
		write(t, dir, "ign/tracked.txt", "changed too")
		write(t, dir, "ign/untracked.txt", "not added")
		write(t, dir, "new.log", "not added")
	}},
	{"executable bit", func(t *testing.T, dir string) {
		write(t, dir, "run.sh", "#!/bin/sh\n")
		os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
		write(t, dir, "was-exec", "x")
		os.Chmod(filepath.Join(dir, "was-exec"), 0o755)
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "c")
		os.Chmod(filepath.Join(dir, "was-exec"), 0o644)
		write(t, dir, "new-exec", "y")
		os.Chmod(filepath.Join(dir, "new-exec"), 0o700)
	}},
	{"core.fileMode=false", func(t *testing.T, dir string) {
		git(t, dir, "config", "core.fileMode", "false")
		write(t, dir, "a", "a")
		os.Chmod(filepath.Join(dir, "a"), 0o755)
		git(t, dir, "add", "-A")
		git(t, dir, "update-index", "--chmod=+x", "a")
		git(t, dir, "commit", "-qm", "c")
		os.Chmod(filepath.Join(dir, "a"), 0o644)
		write(t, dir, "a", "changed")
		write(t, dir, "new-exec", "n")
		os.Chmod(filepath.Join(dir, "new-exec"), 0o755)
	}},
	{"symlinks", func(t *testing.T, dir string) {
		write(t, dir, "target.txt", "t")
		os.Symlink("target.txt", filepath.Join(dir, "link"))
		os.Symlink("does/not/exist", filepath.Join(dir, "dangling"))
		os.MkdirAll(filepath.Join(dir, "realdir"), 0o777)
		write(t, dir, "realdir/f", "f")
		os.Symlink("realdir", filepath.Join(dir, "dirlink"))
	}},
	{"type changes", func(t *testing.T, dir string) {
		write(t, dir, "was-file", "f")
		write(t, dir, "was-dir/x", "x")
		os.Symlink("target", filepath.Join(dir, "was-link"))
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "c")
		os.Remove(filepath.Join(dir, "was-file"))
		write(t, dir, "was-file/inside", "now a dir")
		os.RemoveAll(filepath.Join(dir, "was-dir"))
		write(t, dir, "was-dir", "now a file")
		os.Remove(filepath.Join(dir, "was-link"))
		write(t, dir, "was-link", "now a file")
	}},
	{"untracked nested repository", func(t *testing.T, dir string) {
		nested := filepath.Join(dir, "nested")
		os.MkdirAll(nested, 0o777)
		git(t, nested, "init", "-q")
		write(t, nested, "n.txt", "n")
		git(t, nested, "add", "-A")
		git(t, nested, "commit", "-qm", "n")
		write(t, dir, "top.txt", "t")
	}},
	{"submodule", func(t *testing.T, dir string) {
		up := t.TempDir()
		git(t, up, "init", "-q")
		write(t, up, "u.txt", "u")
		git(t, up, "add", "-A")
		git(t, up, "commit", "-qm", "u1")
		git(t, dir, "submodule", "add", "-q", up, "sub")
		git(t, dir, "commit", "-qm", "add sub")
		sub := filepath.Join(dir, "sub")
		write(t, sub, "u.txt", "u2")
		git(t, sub, "commit", "-qam", "u2") // submodule HEAD moves: snapshot records the new commit
	}},
	{"unpopulated submodule", func(t *testing.T, dir string) {
		up := t.TempDir()
		git(t, up, "init", "-q")
		git(t, up, "commit", "-q", "--allow-empty", "-m", "u1")
		git(t, dir, "submodule", "add", "-q", up, "sub")
		git(t, dir, "commit", "-qm", "add sub")
		git(t, dir, "submodule", "deinit", "-q", "-f", "sub")
	}},
	{"skip-worktree, intent-to-add", func(t *testing.T, dir string) {
		write(t, dir, "sparse.txt", "s")
		write(t, dir, "gone/sparse2.txt", "s2")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "c")
		git(t, dir, "update-index", "--skip-worktree", "sparse.txt", "gone/sparse2.txt")
		write(t, dir, "sparse.txt", "changed but skipped")
		os.RemoveAll(filepath.Join(dir, "gone"))
		write(t, dir, "ita.txt", "intent")
		git(t, dir, "add", "-N", "ita.txt")
		write(t, dir, "ita.txt", "intent, then content")
	}},
	{"merge conflict", func(t *testing.T, dir string) {
		write(t, dir, "c.txt", "base\n")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "base")
		git(t, dir, "checkout", "-qb", "other")
		write(t, dir, "c.txt", "other\n")
		git(t, dir, "commit", "-qam", "other")
		git(t, dir, "checkout", "-q", "main")
		write(t, dir, "c.txt", "main\n")
		git(t, dir, "commit", "-qam", "main")
		gitEnv(dir, nil, "merge", "-q", "other") // conflicts, on purpose
	}},
	{"eol conversion by .gitattributes", func(t *testing.T, dir string) {
		write(t, dir, ".gitattributes", "*.txt text eol=lf\n*.bin binary\n")
		write(t, dir, "crlf.txt", "a\r\nb\r\n")
		write(t, dir, "data.bin", "a\r\nb\r\n")
	}},
	{"core.autocrlf=true", func(t *testing.T, dir string) {
		git(t, dir, "config", "core.autocrlf", "true")
		write(t, dir, "crlf.txt", "a\r\nb\r\n")
	}},
	{"linked worktree", func(t *testing.T, dir string) {
		write(t, dir, "a.txt", "a")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "c")
		write(t, dir, ".git/info/exclude", "*.excluded\n")
	}},
}

// TestOracle compares snapshots with git's own tree on every fixture, twice: cold, and again
// with the stat cache warm.
func TestOracle(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			dir := newRepo(t)
			f.setup(t, dir)
			if f.name == "linked worktree" {
				wt := filepath.Join(t.TempDir(), "wt")
				git(t, dir, "worktree", "add", "-q", wt)
				write(t, wt, "b.excluded", "x")
				write(t, wt, "c.txt", "c")
				dir = wt
			}
			checkSnapshot(t, dir)
			checkSnapshot(t, dir)
		})
	}
}

// TestCacheSeesChanges: a warm cache must notice a same-size rewrite and a deletion.
func TestCacheSeesChanges(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a.txt", "aaaa")
	write(t, dir, "b.txt", "bbbb")
	checkSnapshot(t, dir)
	write(t, dir, "a.txt", "AAAA")
	os.Remove(filepath.Join(dir, "b.txt"))
	res := checkSnapshot(t, dir)
	if res.Hashed != 1 {
		t.Errorf("hashed %d files, want 1 (only the rewritten one)", res.Hashed)
	}
}

// TestUnreadableFile: a file git cannot read either is a clear error, not a wrong tree.
func TestUnreadableFile(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("root reads any file; permissions cannot make one unreadable")
	}
	dir := newRepo(t)
	write(t, dir, "secret.txt", "s")
	os.Chmod(filepath.Join(dir, "secret.txt"), 0)
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Take(r)
	if err == nil || !strings.Contains(err.Error(), "secret.txt") {
		t.Fatalf("want an error naming secret.txt, got %v", err)
	}
}
