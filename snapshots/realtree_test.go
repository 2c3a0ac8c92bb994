package snapshots

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOracleGoTree compares a snapshot with git's tree on a real tree: the Go distribution's
// sources, with four fifths committed, some files changed, deleted and left untracked. The
// index, HEAD and `git status` must be unchanged (checkSnapshot checks both).
func TestOracleGoTree(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the Go source tree")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output() // runtime.GOROOT is deprecated
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no Go sources at %s", src)
	}
	dir := newRepo(t)
	if out, err := exec.Command("cp", "-R", src+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy Go sources: %v\n%s", err, out)
	}
	addAllBut(t, dir, 5)
	git(t, dir, "commit", "-qm", "go sources")
	files := trackedFiles(t, dir)
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		switch {
		case i%97 == 0:
			if err := os.WriteFile(p, []byte("changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		case i%101 == 0:
			os.Remove(p)
		}
	}
	write(t, dir, "untracked/new.go", "package untracked\n")
	ageFiles(t, dir, time.Hour) // older than the cache's "recently changed" window
	res := checkSnapshot(t, dir)
	t.Logf("%d entries, %d hashed", res.Files, res.Hashed)
	res = checkSnapshot(t, dir) // warm cache: nothing to hash
	if res.Hashed != 0 {
		t.Errorf("warm snapshot hashed %d files, want 0", res.Hashed)
	}
	if _, ok := listingDevice(dir); ok && res.Listed != 1 {
		t.Errorf("warm snapshot read %d directories, want 1 (the top): cached listings unused", res.Listed)
	}
	// A change deep in the tree, through cached listings: seen, and git's tree again.
	write(t, dir, "cmd/go/internal/new_file.go", "package internal\n")
	os.Remove(filepath.Join(dir, "untracked", "new.go"))
	checkSnapshot(t, dir)
}

// addAllBut stages every file except every n-th one (so they stay untracked).
func addAllBut(t *testing.T, dir string, n int) {
	t.Helper()
	var keep []string
	i := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			if i++; i%n != 0 {
				rel, _ := filepath.Rel(dir, p)
				keep = append(keep, rel)
			}
		}
		return nil
	})
	cmd := exec.Command("git", "add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul")
	cmd.Dir = dir
	in := ""
	for _, k := range keep {
		in += k + "\x00"
	}
	cmd.Stdin = stringReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
}

func trackedFiles(t *testing.T, dir string) []string {
	t.Helper()
	out := git(t, dir, "ls-files", "-z")
	return strings.Split(strings.TrimRight(out, "\x00"), "\x00")
}

func stringReader(s string) *strings.Reader { return strings.NewReader(s) }

// ageFiles sets every file's and directory's mtime back by d, then waits out the cache's
// 50 ms window for the ctime this sets, so none counts as recently modified.
func ageFiles(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.Name() == ".git" && e.IsDir() {
			return filepath.SkipDir
		}
		if e.Type().IsRegular() || e.IsDir() { // directories too: their listings are cached
			os.Chtimes(p, old, old)
		}
		return nil
	})
	time.Sleep(60 * time.Millisecond)
}
