package snapshots

import (
	"testing"
	"time"
)

// TestAssumeUnchangedCleared: a file answered by its assume-unchanged index entry must not
// be cached with the index's blob and the worktree's stat data: once the bit is cleared, git
// add -A reads the file, and so must the snapshot.
func TestAssumeUnchangedCleared(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a.txt", "a")
	write(t, dir, "d/b.txt", "b")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "a")
	git(t, dir, "update-index", "--assume-unchanged", "a.txt", "d/b.txt")
	write(t, dir, "a.txt", "changed locally")
	write(t, dir, "d/b.txt", "changed locally too")
	ageFiles(t, dir, time.Hour)
	checkSnapshot(t, dir)
	checkSnapshot(t, dir)
	git(t, dir, "update-index", "--no-assume-unchanged", "a.txt", "d/b.txt")
	checkSnapshot(t, dir)
	checkSnapshot(t, dir)
}
