package gitstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteObjectFreshensExisting: writing an object that exists sets its file's time to
// now, loose or packed, as git does, so that a prune running meanwhile (by file time) keeps
// an object a new commit is about to name.
func TestWriteObjectFreshensExisting(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	old := time.Now().Add(-30 * 24 * time.Hour)
	recent := func(path string) bool {
		fi, err := os.Stat(path)
		return err == nil && time.Since(fi.ModTime()) < time.Hour
	}
	h, err := r.WriteObject(BlobObject, []byte("kept\n"))
	if err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(dir, ".git", "objects", h.String()[:2], h.String()[2:])
	os.Chtimes(loose, old, old)
	if _, err := r.WriteObject(BlobObject, []byte("kept\n")); err != nil || !recent(loose) {
		t.Fatalf("the loose object was not freshened (%v)", err)
	}
	refsGit(t, dir, "update-ref", "refs/keep", h.String()) // reachable, so repack packs it
	refsGit(t, dir, "repack", "-a", "-d", "-q")
	refsGit(t, dir, "prune-packed")
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	os.Chtimes(packs[0], old, old)
	r = reopen(t, dir)
	if _, err := r.WriteObject(BlobObject, []byte("kept\n")); err != nil || !recent(packs[0]) {
		t.Fatalf("the pack holding the object was not freshened (%v)", err)
	}
	if _, err := os.Stat(loose); err == nil {
		t.Fatal("the packed object was written loose again")
	}
}
