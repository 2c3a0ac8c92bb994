package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// contentIn17 returns file content, different for each i, whose blob git names 17…: git's
// auto gc estimates the loose objects from objects/17, so each iteration that records such
// a file counts.
func contentIn17(i int) []byte {
	for j := 0; ; j++ {
		c := []byte(fmt.Sprintf("iteration %d, %d\n", i, j))
		if gitstore.HashObject(gitstore.BlobObject, c)[0] == 0x17 {
			return c
		}
	}
}

func countObjects(t *testing.T, dir, field string) string {
	t.Helper()
	for _, line := range strings.Split(gitOut(t, dir, "count-objects", "-v"), "\n") {
		if v, ok := strings.CutPrefix(line, field+": "); ok {
			return v
		}
	}
	t.Fatalf("git count-objects printed no %s", field)
	return ""
}

// checkpoints starts a loop in a new repository with the given gc.auto and records n
// iterations, each with a new blob named 17…; it returns the repository.
func checkpoints(t *testing.T, gcAuto string, n int) string {
	t.Helper()
	dir := newTestRepo(t)
	gitOut(t, dir, "config", "gc.auto", gcAuto)
	gitOut(t, dir, "config", "gc.autoDetach", "false") // maintenance.lock then covers gc's whole run
	s := openStoreAt(t, dir)
	if _, err := s.Start(StartOptions{Name: "g", Flags: Settings{Prompt: "p", Promises: []string{"DONE"}, Unlimited: true}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, "work.txt"), contentIn17(i), 0o666); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Checkpoint("g"); err != nil {
			t.Fatal(err)
		}
		gitstore.WaitMaintenance() // one run at a time, and none left writing when the test ends (gc runs inside it: autoDetach is off)
	}
	return dir
}

// TestIterationsRunAutoGC: past gc.auto, the objects iterations write are packed by git's own
// maintenance, which git-loop starts as git commit would; the loop stays whole.
func TestIterationsRunAutoGC(t *testing.T) {
	dir := checkpoints(t, "1", 6) // gc --auto's estimate: more than one object in objects/17
	if countObjects(t, dir, "in-pack") == "0" {
		t.Fatalf("no object was packed:\n%s", gitOut(t, dir, "count-objects", "-v"))
	}
	gitOut(t, dir, "fsck", "--no-dangling")
	if got := gitOut(t, dir, "rev-list", "--count", "--first-parent", "refs/loop/g"); got != "8" {
		t.Errorf("refs/loop/g has %s state commits, want 8 (the start's two and 6 checkpoints)", got)
	}
}

// TestIterationsGCAutoZero: gc.auto=0 turns git's automatic gc off, for git-loop too: each
// state write leaves its own pack (the start's and six checkpoints'), none merged, and the
// snapshots' objects stay loose.
func TestIterationsGCAutoZero(t *testing.T) {
	dir := checkpoints(t, "0", 6)
	if got := countObjects(t, dir, "packs"); got != "7" {
		t.Errorf("%s packs with gc.auto=0, want 7, one per state write:\n%s", got, gitOut(t, dir, "count-objects", "-v"))
	}
	if got := countObjects(t, dir, "count"); got == "0" {
		t.Errorf("no loose objects left with gc.auto=0:\n%s", gitOut(t, dir, "count-objects", "-v"))
	}
	gitOut(t, dir, "fsck", "--strict", "--no-dangling")
}
