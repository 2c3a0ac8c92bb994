package snapshots

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// TestRetakeAfterPrunedBlob: when a prune took a blob the stat cache vouches for (its
// snapshot was never made reachable, and the prune ran while the next snapshot was being
// taken, after its cache check), Take names the missing blob, and Retake, trusting no
// cache, writes it again: its tree is whole, as git fsck would have it.
func TestRetakeAfterPrunedBlob(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "untracked.txt", "only in snapshots\n")
	time.Sleep(200 * time.Millisecond) // settled (see cacheable), so the cache trusts it
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, err := Take(r)
	if err != nil {
		t.Fatal(err)
	}
	blob := git(t, dir, "hash-object", "untracked.txt")
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	r, _ = gitstore.Open(dir)
	cached, err := Take(r)
	if err != nil {
		t.Fatal(err)
	}
	if cached.Tree != first.Tree || r.CheckWhole(cached.Tree, gitstore.ZeroHash) == nil {
		t.Fatalf("the cache no longer vouches for the pruned blob: the test proves nothing")
	}
	again, err := Retake(r)
	if err != nil {
		t.Fatal(err)
	}
	if again.Tree != first.Tree {
		t.Errorf("retaken tree %s, want %s", again.Tree, first.Tree)
	}
	if err := r.CheckWhole(again.Tree, gitstore.ZeroHash); err != nil {
		t.Errorf("retaken, the tree is not whole: %v", err)
	}
	git(t, dir, "update-ref", "refs/keep", again.Tree.String())
	git(t, dir, "fsck", "--no-dangling", "--strict")
}
