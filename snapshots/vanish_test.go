package snapshots

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// TestVanishedFile: a file deleted between the walk and its hashing asks for a new walk, and
// Take then records the tree without it, exactly as git would now.
func TestVanishedFile(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "stays.txt", "s")
	write(t, dir, "goes.txt", "g")
	s := openSnapshotter(t, dir)
	if _, err := s.walk(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "goes.txt"))
	if err := s.hashPending(); !errors.Is(err, errRetry) {
		t.Fatalf("hashing a vanished file: got %v, want errRetry", err)
	}
	checkSnapshot(t, dir)
}

// TestVanishedDirectory: a directory removed after its parent listed it is not in the
// snapshot and is no error.
func TestVanishedDirectory(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "d/x.txt", "x")
	s := openSnapshotter(t, dir)
	os.RemoveAll(filepath.Join(dir, "d"))
	subs, err := s.readDir(subdir{node: &node{rel: "d"}}, newScratch())
	if err != nil || len(subs) != 0 {
		t.Fatalf("reading a vanished directory: subs %v, err %v; want none, nil", subs, err)
	}
}

// openSnapshotter opens dir's repository and a snapshotter on it, for tests that drive the
// walk's steps one by one.
func openSnapshotter(t *testing.T, dir string) *snapshotter {
	t.Helper()
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSnapshotter(r, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
