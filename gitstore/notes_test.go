package gitstore

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// notesRepo is a repository with n commits on main; it returns them oldest first.
func notesRepo(t *testing.T, n int) (*Repo, string, []Hash) {
	t.Helper()
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	var commits []Hash
	for i := 0; i < n; i++ {
		refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("c%d", i))
		commits = append(commits, refsMustHash(t, refsGit(t, dir, "rev-parse", "HEAD")))
	}
	return r, dir, commits
}

func noteShow(t *testing.T, dir string, h Hash) string {
	t.Helper()
	return refsGit(t, dir, "notes", "--ref=loop", "show", h.String())
}

// TestAppendNotesGitReadsThem: notes written by AppendNotes are what `git notes show`
// prints, a second line is appended (never replacing the first), a line already there is not
// repeated, and notes git itself wrote are kept.
func TestAppendNotesGitReadsThem(t *testing.T) {
	r, dir, cs := notesRepo(t, 3)
	who := r.Identity(time.Unix(1700000000, 0))
	if err := r.AppendNotes("refs/notes/loop", map[Hash]string{cs[0]: "loop x, iteration 1, gates 1/2", cs[1]: "loop x, iteration 1, gates 1/2"}, who); err != nil {
		t.Fatal(err)
	}
	refsGit(t, dir, "notes", "--ref=loop", "add", "-m", "by git", cs[2].String())
	if err := r.AppendNotes("refs/notes/loop", map[Hash]string{cs[0]: "loop x, iteration 2, gates 2/2", cs[1]: "loop x, iteration 1, gates 1/2", cs[2]: "loop y, iteration 4, gates 0/1"}, who); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		commit Hash
		want   string
	}{
		{cs[0], "loop x, iteration 1, gates 1/2\nloop x, iteration 2, gates 2/2"},
		{cs[1], "loop x, iteration 1, gates 1/2"},
		{cs[2], "by git\nloop y, iteration 4, gates 0/1"},
	} {
		if got := noteShow(t, dir, tc.commit); got != tc.want {
			t.Errorf("note on %s = %q, want %q", tc.commit, got, tc.want)
		}
	}
	log := refsGit(t, dir, "log", "--notes=loop", "-1", cs[0].String())
	if !strings.Contains(log, "Notes (loop):\n    loop x, iteration 1, gates 1/2") {
		t.Errorf("git log --notes=loop does not show the note:\n%s", log)
	}
	if n := refsGit(t, dir, "rev-list", "--count", "refs/notes/loop"); n != "3" {
		t.Errorf("notes history has %s commits, want 3 (ours, git's, ours)", n)
	}
	refsGit(t, dir, "fsck", "--strict")
}

// TestAppendNotesFannedOut: a note stored in a fan-out directory, as git writes large notes
// trees, is found and appended to in place, not shadowed by a second flat note.
func TestAppendNotesFannedOut(t *testing.T) {
	r, dir, cs := notesRepo(t, 1)
	hex := cs[0].String()
	note := strings.TrimSpace(refsGitIn(t, dir, "old line\n", "hash-object", "-w", "--stdin"))
	sub := strings.TrimSpace(refsGitIn(t, dir, fmt.Sprintf("100644 blob %s\t%s\n", note, hex[2:]), "mktree"))
	root := strings.TrimSpace(refsGitIn(t, dir, fmt.Sprintf("040000 tree %s\t%s\n", sub, hex[:2]), "mktree"))
	commit := refsGit(t, dir, "commit-tree", "-m", "notes", root)
	refsGit(t, dir, "update-ref", "refs/notes/loop", commit)
	if got := noteShow(t, dir, cs[0]); got != "old line" {
		t.Fatalf("fixture: git reads %q", got)
	}
	if err := r.AppendNotes("refs/notes/loop", map[Hash]string{cs[0]: "new line"}, r.Identity(time.Now())); err != nil {
		t.Fatal(err)
	}
	if got := noteShow(t, dir, cs[0]); got != "old line\nnew line" {
		t.Errorf("note = %q, want both lines", got)
	}
	if ls := refsGit(t, dir, "ls-tree", "-r", "--name-only", "refs/notes/loop"); ls != hex[:2]+"/"+hex[2:] {
		t.Errorf("notes tree = %q, want the one fanned-out entry", ls)
	}
}

// refsGitIn runs git in dir with stdin and returns its standard output.
func refsGitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
