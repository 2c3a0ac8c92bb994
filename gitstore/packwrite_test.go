package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// batchObjects writes a commit over a tree over n blobs of sizes that need one, two and
// three bytes of size in a pack entry's header, through r, and returns the commit.
func batchObjects(t *testing.T, r *Repo, n int) Hash {
	return batchObjectsSalted(t, r, n, "")
}

// batchObjectsSalted is batchObjects with salt in the commit's message, to make a new one.
func batchObjectsSalted(t *testing.T, r *Repo, n int, salt string) Hash {
	t.Helper()
	var entries []TreeEntry
	for i := 0; i < n; i++ {
		content := strings.Repeat(fmt.Sprintf("blob %d ", i), []int{1, 3, 900, 3000}[i%4])
		h, err := r.WriteUniqueObject(BlobObject, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, TreeEntry{Name: fmt.Sprintf("f%02d", i), Mode: 0o100644, Hash: h})
	}
	tree, err := r.WriteObject(TreeObject, EncodeTree(entries))
	if err != nil {
		t.Fatal(err)
	}
	sig := r.Identity(time.Now())
	c, err := r.WriteCommit(&Commit{Tree: tree, Author: sig, Committer: sig, Message: "batch\n" + salt})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func packFiles(t *testing.T, dir string) []string {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
	return packs
}

// TestInPackWritesOnePack: the objects written in a batch are readable from it before it is
// written, and then stored as one pack that git verifies, reads and finds whole, with no
// loose object and no temporary file left.
func TestInPackWritesOnePack(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	var commit Hash
	err := r.InPack(func() error {
		commit = batchObjects(t, r, 6)
		c, err := r.ReadCommit(commit) // kept back, yet readable
		if err != nil || !r.HasObject(c.Tree) {
			t.Errorf("read in the batch: %v, has tree %v", err, r.HasObject(c.Tree))
		}
		if packs := packFiles(t, dir); len(packs) != 0 {
			t.Errorf("a pack before the batch ended: %v", packs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	packs := packFiles(t, dir)
	if len(packs) != 1 {
		t.Fatalf("packs %v, want one", packs)
	}
	refsGit(t, dir, "verify-pack", strings.TrimSuffix(packs[0], ".pack")+".idx")
	if got := countObjectsField(t, dir, "count"); got != 0 {
		t.Errorf("%d loose objects beside the pack", got)
	}
	if got := countObjectsField(t, dir, "in-pack"); got != 8 {
		t.Errorf("%d objects in the pack, want 8: six blobs, a tree, a commit", got)
	}
	refsGit(t, dir, "update-ref", "refs/heads/main", commit.String())
	refsGit(t, dir, "fsck", "--strict", "--no-dangling")
	if got := refsGit(t, dir, "cat-file", "-p", "main:f02"); got != strings.TrimRight(strings.Repeat("blob 2 ", 900), "\n") {
		t.Errorf("git reads f02 as %.40q…", got)
	}
	if c, err := reopen(t, dir).ReadCommit(commit); err != nil || c.Message != "batch\n" {
		t.Errorf("a new Repo reads the commit as %+v, %v", c, err)
	}
	if c, err := r.ReadCommit(commit); err != nil || c.Message != "batch\n" {
		t.Errorf("the writer reads the commit back as %+v, %v", c, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "tmp_*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestInPackFailureWritesNothing: a batch whose work fails stores none of its objects.
func TestInPackFailureWritesNothing(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	var commit Hash
	boom := errors.New("boom")
	if err := r.InPack(func() error { commit = batchObjects(t, r, 4); return boom }); !errors.Is(err, boom) {
		t.Fatalf("InPack = %v, want its work's error", err)
	}
	if r.HasObject(commit) || len(packFiles(t, dir)) != 0 || countObjectsField(t, dir, "count") != 0 {
		t.Errorf("objects of a failed batch were stored")
	}
}

// TestInPackFewObjectsLoose: a batch of fewer than minPackObjects is written loose (a pack's
// index alone would outweigh them), and a nested batch joins the outer one.
func TestInPackFewObjectsLoose(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	err := r.InPack(func() error {
		_, err := r.WriteUniqueObject(BlobObject, []byte("one\n"))
		if err != nil {
			return err
		}
		return r.InPack(func() error {
			_, err := r.WriteUniqueObject(BlobObject, []byte("two\n"))
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(packFiles(t, dir)) != 0 || countObjectsField(t, dir, "count") != 2 {
		t.Errorf("two objects: packs %v, %d loose; want both loose", packFiles(t, dir), countObjectsField(t, dir, "count"))
	}
}

// TestInPackExistingObjects: an object already stored is not stored again by a batch
// (WriteObject looks first), and one written twice in a batch is packed once.
func TestInPackExistingObjects(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	if _, err := r.WriteObject(BlobObject, []byte("there\n")); err != nil {
		t.Fatal(err)
	}
	err := r.InPack(func() error {
		for _, c := range []string{"there\n", "a\n", "b\n", "c\n", "c\n"} {
			if _, err := r.WriteObject(BlobObject, []byte(c)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := countObjectsField(t, dir, "in-pack"); got != 3 {
		t.Errorf("%d objects packed, want 3 (a, b, c)", got)
	}
	if got := countObjectsField(t, dir, "count"); got != 1 {
		t.Errorf("%d loose objects, want the one written before", got)
	}
	refsGit(t, dir, "fsck", "--strict")
}

// TestSweepRemovesStaleTempPacks: the temporary pack files of a writer that was killed are
// removed by the next sweep once they are an hour old; fresh ones (a writer at work) stay.
func TestSweepRemovesStaleTempPacks(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	os.MkdirAll(packDir, 0o777)
	old, fresh := filepath.Join(packDir, tmpPackPrefix+"1"), filepath.Join(packDir, tmpPackPrefix+"2")
	os.WriteFile(old, []byte("PACK"), 0o444)
	os.WriteFile(fresh, []byte("PACK"), 0o444)
	hourAgo := time.Now().Add(-2 * TempObjectAge)
	os.Chtimes(old, hourAgo, hourAgo)
	if n := r.SweepTempObjects(); n != 1 {
		t.Errorf("swept %d, want 1", n)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary pack left: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temporary pack removed: %v", err)
	}
}

// TestInPackForgetsPacksRolledUp: a long-lived writer (`git loop run` writes every
// iteration's state through one Repo) does not keep the packs its state writes made open once
// a roll-up has merged and deleted them: each would hold a file, a mapped index and its disk
// space for the life of the process, and every object look-up would search them all. The
// objects stay readable from the pack the roll-up made. (A writer with fewer than
// forgetDeletedAt packs open does not look: a hook writes once and exits.)
func TestInPackForgetsPacksRolledUp(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	var commits []Hash
	for i := 0; i < forgetDeletedAt; i++ {
		if err := r.InPack(func() error { commits = append(commits, batchObjectsSalted(t, r, 3, fmt.Sprint(i))); return nil }); err != nil {
			t.Fatal(err)
		}
		r.HasObject(commits[0]) // the first look-up lists the packs; later state writes add theirs
	}
	refsGit(t, dir, "repack", "-d", "-l", "--geometric=2", "-q") // a roll-up merges them, deleting them
	if err := r.InPack(func() error { commits = append(commits, batchObjectsSalted(t, r, 3, "last")); return nil }); err != nil {
		t.Fatal(err)
	}
	db := r.objects()
	db.mu.Lock()
	var gone []string
	for _, p := range db.packs {
		if _, err := os.Stat(p.file.Name()); err != nil {
			gone = append(gone, filepath.Base(p.file.Name()))
		}
	}
	db.mu.Unlock()
	if len(gone) != 0 {
		t.Errorf("%d deleted packs still open: %v", len(gone), gone)
	}
	for _, c := range commits {
		if _, err := r.ReadCommit(c); err != nil {
			t.Errorf("commit %s: %v", c, err)
		}
	}
}

// TestSweepRemovesOrphanPacks: a pack whose index never came (its writer was killed between
// the two renames) is removed by the sweep once an hour old; a fresh one, and a pack with
// its index, stay.
func TestSweepRemovesOrphanPacks(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	if err := r.InPack(func() error { batchObjects(t, r, 3); return nil }); err != nil {
		t.Fatal(err)
	}
	whole := packFiles(t, dir)
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	orphan, fresh := filepath.Join(packDir, "pack-"+strings.Repeat("a", 40)+".pack"), filepath.Join(packDir, "pack-"+strings.Repeat("b", 40)+".pack")
	os.WriteFile(orphan, []byte("PACK"), 0o444)
	os.WriteFile(fresh, []byte("PACK"), 0o444)
	old := time.Now().Add(-2 * TempObjectAge)
	os.Chtimes(orphan, old, old)
	os.Chtimes(whole[0], old, old)
	r.SweepTempObjects()
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an hour-old pack without index left: %v", err)
	}
	for _, p := range append(whole, fresh) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// TestInPackPanicClosesTheBatch: a panic in the batch's work leaves no batch open for later
// writes to vanish into.
func TestInPackPanicClosesTheBatch(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	func() {
		defer func() { recover() }()
		r.InPack(func() error { panic("boom") })
	}()
	if _, err := r.WriteUniqueObject(BlobObject, []byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if got := countObjectsField(t, dir, "count"); got != 1 {
		t.Errorf("a write after the panic: %d loose objects, want it stored", got)
	}
}
