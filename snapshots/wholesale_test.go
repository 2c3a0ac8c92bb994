package snapshots

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// wholesaleDirs walks dir as a snapshot would and returns the directories whose files the
// stat cache answered whole (see keepFiles), so a test knows it exercises that path.
func wholesaleDirs(t *testing.T, dir string) []string {
	t.Helper()
	s := openSnapshotter(t, dir)
	root, err := s.walk()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var visit func(n *node)
	visit = func(n *node) {
		if n.cachedFiles > 0 {
			out = append(out, n.rel)
		}
		for _, d := range n.dirs {
			visit(d)
		}
	}
	visit(root)
	slices.Sort(out)
	return out
}

// settle ages the worktree and takes two snapshots, so that the next walk finds the
// directories' files in the stat cache, and checks that want are answered whole.
func settle(t *testing.T, dir string, want ...string) {
	t.Helper()
	ageFiles(t, dir, time.Hour)
	checkSnapshot(t, dir)
	checkSnapshot(t, dir)
	got := wholesaleDirs(t, dir)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("directory %q not answered whole by the cache (wholesale: %q)", w, got)
		}
	}
}

// TestWholesaleSubdirsChange: a directory answered whole whose set of subdirectories changes
// while its files do not must write its tree from its cached records.
func TestWholesaleSubdirsChange(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "d/a", "a")
	write(t, dir, "d/b", "b")
	write(t, dir, "d/s/x", "x")
	write(t, dir, "d/t/y", "y")
	settle(t, dir, "d", "d/s", "d/t")

	steps := []struct {
		name string
		do   func()
	}{
		{"subdirectory removed", func() { os.RemoveAll(filepath.Join(dir, "d/s")) }},
		{"subdirectory added", func() { write(t, dir, "d/u/z", "z") }},
		{"subdirectory renamed", func() { os.Rename(filepath.Join(dir, "d/t"), filepath.Join(dir, "d/v")) }},
		{"empty subdirectory added", func() { os.MkdirAll(filepath.Join(dir, "d/w"), 0o777) }},
		{"subdirectory replaced by one of the same entry count", func() {
			os.RemoveAll(filepath.Join(dir, "d/u"))
			write(t, dir, "d/n/z", "other")
		}},
		{"subdirectory holding only an ignored file", func() {
			write(t, dir, ".gitignore", "*.log\n")
			os.RemoveAll(filepath.Join(dir, "d/n"))
			write(t, dir, "d/i/junk.log", "j")
		}},
	}
	for _, st := range steps {
		st.do()
		if got := wholesaleDirs(t, dir); !slices.Contains(got, "d") {
			t.Fatalf("%s: d not answered whole (wholesale: %q)", st.name, got)
		}
		checkSnapshot(t, dir)
		checkSnapshot(t, dir)
		settle(t, dir, "d")
	}
	if out, err := gitEnv(dir, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestWholesaleSparse: skip-worktree entries make the walk's wholesale directories
// materialize: the index's kept entries go into them, and a file of one where a sparse
// entry's directory was keeps that entry out.
func TestWholesaleSparse(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "d/a", "a")
	write(t, dir, "d/b", "b")
	write(t, dir, "d/c", "c")
	write(t, dir, "f/other", "o")
	write(t, dir, "f/g/h", "h")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	settle(t, dir, "d", "f", "f/g")

	// d/c goes sparse (absent); f/g/h too, and f/g becomes a file of f's.
	git(t, dir, "update-index", "--skip-worktree", "d/c", "f/g/h")
	os.Remove(filepath.Join(dir, "d/c"))
	os.RemoveAll(filepath.Join(dir, "f/g"))
	write(t, dir, "f/g", "now a file")
	checkSnapshot(t, dir)
	settle(t, dir, "d", "f")
	checkSnapshot(t, dir)

	// a sparse file present in the worktree with other content: git add -A leaves it alone
	write(t, dir, "d/c", "changed but skipped")
	checkSnapshot(t, dir)
	settle(t, dir, "d")
	checkSnapshot(t, dir)
	if out, err := gitEnv(dir, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestWholesaleConversion: conversion attributes found in one directory send every cache
// hit back to hashing, those of directories answered whole before it was found included.
func TestWholesaleConversion(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a/crlf.txt", "a\r\nb\r\n")
	write(t, dir, "a/b/crlf.txt", "c\r\nd\r\n")
	write(t, dir, "z/crlf.txt", "e\r\nf\r\n")
	settle(t, dir, "a", "a/b", "z")
	write(t, dir, "z/q/.gitattributes", "*.txt text eol=lf\n")
	write(t, dir, "z/q/crlf.txt", "g\r\nh\r\n")
	checkSnapshot(t, dir)
	checkSnapshot(t, dir)
	write(t, dir, ".gitattributes", "a/** text eol=lf\n")
	checkSnapshot(t, dir)
	checkSnapshot(t, dir)
}
