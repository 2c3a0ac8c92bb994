package snapshots

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A sequence runs steps on one repository and compares a snapshot with git's tree after each.
// Files are aged between steps, so the stat cache (which never trusts files changed in the
// last seconds) is really used: these are the tests that fail if it trusts too much.
type sequence struct {
	name  string
	steps []func(t *testing.T, dir string)
}

// sameSizeRewrite replaces a file's content with other bytes of the same size and puts the
// old mtime back, so only ctime and content tell the change.
func sameSizeRewrite(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, rel, content)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
}

var sequences = []sequence{
	{"same-size rewrite with the old mtime", []func(*testing.T, string){
		func(t *testing.T, dir string) { write(t, dir, "a.txt", "aaaa"); write(t, dir, "b.txt", "bbbb") },
		func(t *testing.T, dir string) { sameSizeRewrite(t, dir, "a.txt", "AAAA") },
	}},
	{"deletion in an unchanged directory", []func(*testing.T, string){
		func(t *testing.T, dir string) { write(t, dir, "d/a", "a"); write(t, dir, "d/b", "b") },
		func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "d/b")) },
	}},
	{"file becomes a directory and back", []func(*testing.T, string){
		func(t *testing.T, dir string) { write(t, dir, "x", "file") },
		func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "x")); write(t, dir, "x/inner", "dir") },
		func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "x")); write(t, dir, "x", "file") },
	}},
	{"new .gitignore hides a cached file", []func(*testing.T, string){
		func(t *testing.T, dir string) { write(t, dir, "keep.txt", "k"); write(t, dir, "junk.log", "j") },
		func(t *testing.T, dir string) { write(t, dir, ".gitignore", "*.log\n") },
	}},
	{"attributes added after a file was cached", []func(*testing.T, string){
		func(t *testing.T, dir string) { write(t, dir, "crlf.txt", "a\r\nb\r\n") },
		func(t *testing.T, dir string) { write(t, dir, ".gitattributes", "*.txt text eol=lf\n") },
	}},
	{"conversion from info/attributes", []func(*testing.T, string){
		func(t *testing.T, dir string) {
			write(t, dir, ".git/info/attributes", "*.txt text eol=lf\n")
			write(t, dir, "crlf.txt", "a\r\nb\r\n")
		},
	}},
	{"safe autocrlf: committed CRLF stays CRLF under text=auto", []func(*testing.T, string){
		func(t *testing.T, dir string) {
			write(t, dir, "c.txt", "one\r\ntwo\r\n")
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-qm", "crlf")
			write(t, dir, ".gitattributes", "* text=auto\n")
			write(t, dir, "c.txt", "one\r\ntwo\r\nthree\r\n")
		},
	}},
	{"assume-unchanged keeps the index's blob", []func(*testing.T, string){
		func(t *testing.T, dir string) {
			write(t, dir, "a.txt", "a")
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-qm", "a")
			git(t, dir, "update-index", "--assume-unchanged", "a.txt")
			write(t, dir, "a.txt", "changed locally")
		},
	}},
	{"core.symlinks=false keeps a link a link", []func(*testing.T, string){
		func(t *testing.T, dir string) {
			os.Symlink("target", filepath.Join(dir, "link"))
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-qm", "link")
			git(t, dir, "config", "core.symlinks", "false")
			os.Remove(filepath.Join(dir, "link"))
			write(t, dir, "link", "target")
		},
	}},
	{"a stray .git entry is not a repository", []func(*testing.T, string){
		func(t *testing.T, dir string) {
			write(t, dir, "sub/.git", "")
			write(t, dir, "sub/f", "f")
			write(t, dir, "broken/.git", "gitdir: /does/not/exist\n")
			write(t, dir, "broken/g", "g")
			os.MkdirAll(filepath.Join(dir, "emptygit/.git"), 0o777)
			write(t, dir, "emptygit/h", "h")
		},
	}},
	{"a file where a sparse entry's directory was", []func(*testing.T, string){
		func(t *testing.T, dir string) {
			write(t, dir, "d/x", "x")
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-qm", "d/x")
			git(t, dir, "update-index", "--skip-worktree", "d/x")
			os.RemoveAll(filepath.Join(dir, "d"))
			write(t, dir, "d", "now a file")
		},
	}},
}

func TestSequences(t *testing.T) {
	for _, seq := range sequences {
		t.Run(seq.name, func(t *testing.T) {
			dir := newRepo(t)
			for i, step := range seq.steps {
				step(t, dir)
				if i == 0 { // later steps keep these stat data unless they change the file
					ageFiles(t, dir, time.Hour)
				}
				checkSnapshot(t, dir)
				checkSnapshot(t, dir)
			}
			if out, err := gitEnv(dir, nil, "fsck", "--strict", "--no-dangling"); err != nil {
				t.Errorf("git fsck: %v\n%s", err, out)
			}
		})
	}
}

// TestCacheIsUsed: with aged files, a second snapshot reads nothing; so the sequences above
// exercise the cache rather than rehashing everything.
func TestCacheIsUsed(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a.txt", "a")
	write(t, dir, "d/b.txt", "b")
	ageFiles(t, dir, time.Hour)
	checkSnapshot(t, dir)
	if res := checkSnapshot(t, dir); res.Hashed != 0 {
		t.Fatalf("second snapshot hashed %d files, want 0", res.Hashed)
	}
	sameSizeRewrite(t, dir, "a.txt", "A")
	if res := checkSnapshot(t, dir); res.Hashed != 1 {
		t.Fatalf("after one rewrite hashed %d files, want 1", res.Hashed)
	}
}
