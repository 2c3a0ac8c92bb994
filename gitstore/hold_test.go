package gitstore

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// holdSnapshot writes, loose and unreachable, a blob, a tree naming it and a commit of that
// tree, as a snapshot is written before its state commit makes it reachable.
func holdSnapshot(t *testing.T, r *Repo, content string) (blob, tree, commit Hash) {
	t.Helper()
	var err error
	if blob, err = r.WriteObject(BlobObject, []byte(content)); err != nil {
		t.Fatal(err)
	}
	if tree, err = r.WriteObject(TreeObject, EncodeTree([]TreeEntry{{Name: "f", Mode: ModeFile, Hash: blob}})); err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(string(refsCommitData(ZeroHash, "snapshot")), "4b825dc642cb6eb9a060e54bf8d69288fbee4904", tree.String(), 1)
	if commit, err = r.WriteObject(CommitObject, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return blob, tree, commit
}

// TestHoldSurvivesPrune: what a hold reaches survives git's most eager collections, its ref
// packed or loose; released, the hold's ref is gone, loose and packed, and the next prune
// takes the objects, as it did before the hold.
func TestHoldSurvivesPrune(t *testing.T) {
	refsHermetic(t)
	for _, collect := range [][]string{
		{"gc", "--prune=now", "-q"},
		{"prune", "--expire=now"},
		{"repack", "-a", "-d", "-q"},
	} {
		t.Run(collect[0], func(t *testing.T) {
			r, dir := refsNewRepo(t)
			blob, tree, commit := holdSnapshot(t, r, "held "+collect[0]+"\n")
			hd, err := r.HoldObject("x", commit)
			if err != nil {
				t.Fatal(err)
			}
			refsGit(t, dir, collect...)
			for _, h := range []Hash{blob, tree, commit} {
				refsGit(t, dir, "cat-file", "-e", h.String())
			}
			refsGit(t, dir, "fsck", "--no-dangling", "--strict")
			hd.Release()
			if out := refsGit(t, dir, "for-each-ref", HoldPrefix); out != "" {
				t.Fatalf("released, the hold is still there: %s", out)
			}
			refsGit(t, dir, "gc", "--prune=now", "-q")
			if _, err := refsGitErr(dir, "cat-file", "-e", blob.String()); err == nil {
				t.Error("released, the object was kept: the test proves nothing")
			}
		})
	}
}

// TestHoldReleasePacked: a hold whose ref git gc packed is removed from packed-refs.
func TestHoldReleasePacked(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	_, _, commit := holdSnapshot(t, r, "packed\n")
	hd, err := r.HoldObject("x", commit)
	if err != nil {
		t.Fatal(err)
	}
	refsGit(t, dir, "pack-refs", "--all", "--prune")
	if got := refsGit(t, dir, "rev-parse", hd.Name()); got != commit.String() {
		t.Fatalf("packed hold is %s", got)
	}
	hd.Release()
	if out := refsGit(t, dir, "for-each-ref", HoldPrefix); out != "" {
		t.Fatalf("released, the packed hold is still there: %s", out)
	}
	refsGit(t, dir, "fsck", "--no-dangling")
}

// TestSweepHolds: a hold whose owner is gone is swept, loose or packed; a live owner's stays.
func TestSweepHolds(t *testing.T) {
	refsHermetic(t)
	me := currentOwner()
	if me.HostKey == "" {
		t.Skip("this system tells no process start times")
	}
	r, dir := refsNewRepo(t)
	_, _, commit := holdSnapshot(t, r, "swept\n")
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	dead := me
	dead.Pid = child.Process.Pid
	ours, err := r.HoldObject("live", commit)
	if err != nil {
		t.Fatal(err)
	}
	for i, packed := range []bool{false, true} {
		refsGit(t, dir, "update-ref", fmt.Sprintf("%sdead%d/%s", HoldPrefix, i, dead.recordName()), commit.String())
		if packed {
			refsGit(t, dir, "pack-refs", "--all", "--prune")
		}
	}
	if n := r.SweepHolds(); n != 2 {
		t.Errorf("swept %d holds, want the 2 of a dead owner", n)
	}
	if out := refsGit(t, dir, "for-each-ref", "--format=%(refname)", HoldPrefix); out != ours.Name() {
		t.Errorf("holds left: %q, want only %s", out, ours.Name())
	}
	ours.Release()
	refsGit(t, dir, "fsck", "--no-dangling")
}

// TestCheckWhole: a tree is whole when every object below it is stored; what it shares
// with a whole base is not looked at, and gitlinks are not looked for.
func TestCheckWhole(t *testing.T) {
	refsHermetic(t)
	r, _ := refsNewRepo(t)
	write := func(tt ObjectType, data []byte) Hash {
		h, err := r.WriteObject(tt, data)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	present := write(BlobObject, []byte("here\n"))
	missing := HashObject(BlobObject, []byte("never stored\n"))
	sub := func(h Hash) Hash {
		return write(TreeObject, EncodeTree([]TreeEntry{{Name: "f", Mode: ModeFile, Hash: h}}))
	}
	top := func(s Hash, extra ...TreeEntry) Hash {
		es := append([]TreeEntry{{Name: "d", Mode: ModeTree, Hash: s}}, extra...)
		SortTreeEntries(es)
		return write(TreeObject, EncodeTree(es))
	}
	whole := top(sub(present))
	broken := top(sub(missing))
	tests := []struct {
		name       string
		tree, base Hash
		whole      bool
	}{
		{"all stored", whole, ZeroHash, true},
		{"a blob missing below", broken, ZeroHash, false},
		{"the same as its base", broken, broken, true},
		{"sharing the broken subtree with its base", top(sub(missing), TreeEntry{Name: "g", Mode: ModeFile, Hash: present}), broken, true},
		{"a blob missing where it differs from its base", broken, whole, false},
		{"a gitlink", top(sub(present), TreeEntry{Name: "m", Mode: ModeGitlink, Hash: missing}), ZeroHash, true},
		{"the tree itself missing", HashObject(TreeObject, []byte("x")), ZeroHash, false},
	}
	for _, tt := range tests {
		err := r.CheckWhole(tt.tree, tt.base)
		if tt.whole && err != nil || !tt.whole && !errors.Is(err, ErrObjectNotFound) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
