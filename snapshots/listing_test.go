package snapshots

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestListingRoundTrip(t *testing.T) {
	for _, ents := range [][]dirent{
		nil,
		{{"a", kindFile}},
		{{"dir", kindDir}, {"link", kindSymlink}, {"fifo", kindOther}, {"name with spaces\tand tabs", kindFile}, {"\xff\xfe", kindFile}},
	} {
		enc := encodeListing(ents)
		got, ok := decodeListing(enc, nil)
		if !ok || !slices.Equal(got, ents) && len(got)+len(ents) > 0 {
			t.Errorf("round trip of %q: %q, %v", ents, got, ok)
		}
	}
	if encodeListing(nil) == "" {
		t.Error("an empty directory's listing is the empty string, which means none")
	}
	for _, bad := range []string{"", "\x02a\x00", "L\x00", "L\x02a", "L\x00a\x00", "L\x09a\x00", "L\x02a/b\x00", "L\x01.\x00", "L\x01..\x00", "L\x02\x00"} {
		if _, ok := decodeListing(bad, nil); ok {
			t.Errorf("decodeListing(%q) accepted", bad)
		}
	}
}

// FuzzDecodeListing: any string either decodes to entries that encode back to it, or is refused.
func FuzzDecodeListing(f *testing.F) {
	f.Add(encodeListing([]dirent{{"a", kindFile}, {"d", kindDir}}))
	f.Add("")
	f.Add("L\x02x")
	f.Fuzz(func(t *testing.T, s string) {
		ents, ok := decodeListing(s, nil)
		if !ok {
			return
		}
		if again := encodeListing(ents); again != s {
			t.Fatalf("decoded %q, encodes back to %q", s, again)
		}
	})
}

// TestListingsAreUsed: with settled directories, a second snapshot reads none but the top;
// a directory that changed is read again, and only it.
func TestListingsAreUsed(t *testing.T) {
	dir := newRepo(t)
	needListings(t, dir)
	write(t, dir, "a.txt", "a")
	write(t, dir, "d/b.txt", "b")
	write(t, dir, "d/e/c.txt", "c")
	write(t, dir, "f/g.txt", "g")
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "logs/x.log", "only ignored files: nothing to record")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o777); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, dir, time.Hour)
	if res := checkSnapshot(t, dir); res.Listed != 6 {
		t.Fatalf("first snapshot read %d directories, want 6", res.Listed)
	}
	if res := checkSnapshot(t, dir); res.Listed != 1 {
		t.Fatalf("second snapshot read %d directories, want 1 (the top)", res.Listed)
	}
	write(t, dir, "d/e/new.txt", "new") // changes d/e's listing, and only its
	// Changed a moment ago, d/e is not settled; its times are set ahead so that a busy
	// machine taking more than the settling margin before the next snapshot cannot settle
	// it early (the ctime the kernel sets now stays behind the mtime).
	ahead := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "d/e"), ahead, ahead); err != nil {
		t.Fatal(err)
	}
	if res := checkSnapshot(t, dir); res.Listed != 2 {
		t.Fatalf("after a file was added to d/e, read %d directories, want 2", res.Listed)
	}
	write(t, dir, "empty/now.txt", "n") // the empty and the ignored-only directories' listings
	write(t, dir, "logs/kept.txt", "k") // were cached too: changes to them are seen
	// the top, empty, logs, and d/e again: changed a moment ago, it is not settled yet
	if res := checkSnapshot(t, dir); res.Listed != 4 {
		t.Fatalf("after files were added to empty and logs, read %d directories, want 4", res.Listed)
	}
}

// TestListingChanges: every way a directory's entries can change is seen through a cached
// listing, the tree checked against git's each time.
func TestListingChanges(t *testing.T) {
	needListings(t, t.TempDir())
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"file added", func(t *testing.T, dir string) { write(t, dir, "d/new", "n") }},
		{"file removed", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "d/x")) }},
		{"file renamed", func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, "d/x"), filepath.Join(dir, "d/y"))
		}},
		{"file replaced by a directory", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "d/x"))
			write(t, dir, "d/x/inner", "i")
		}},
		{"directory replaced by a symlink", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "d/sub"))
			os.Symlink("../elsewhere", filepath.Join(dir, "d/sub"))
		}},
		{"file added, the directory's mtime put back", func(t *testing.T, dir string) {
			d := filepath.Join(dir, "d")
			fi, err := os.Stat(d)
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, "d/sneaky", "s")
			os.Chtimes(d, fi.ModTime(), fi.ModTime()) // only ctime tells
		}},
		{"directory moved in from elsewhere", func(t *testing.T, dir string) {
			write(t, dir, "other/moved/m", "m")
			os.Rename(filepath.Join(dir, "other/moved"), filepath.Join(dir, "d/moved"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			write(t, dir, "d/x", "x")
			write(t, dir, "d/sub/s", "s")
			write(t, dir, "top", "t")
			ageFiles(t, dir, time.Hour)
			checkSnapshot(t, dir)
			if res := checkSnapshot(t, dir); res.Listed != 1 {
				t.Fatalf("warm snapshot read %d directories, want 1: the listings are not used", res.Listed)
			}
			tc.change(t, dir)
			checkSnapshot(t, dir) // compares with git's tree
			ageFiles(t, dir, time.Hour)
			checkSnapshot(t, dir)
			checkSnapshot(t, dir)
		})
	}
}

// TestListingDeepPaths: a file whose path in the worktree fits PATH_MAX (git takes it) but
// whose absolute path does not: warm snapshots, whose cached directories are examined by
// path, must open such deep directories instead (found in review).
func TestListingDeepPaths(t *testing.T) {
	dir := newRepo(t)
	rel := ""
	for i := 0; i < 16; i++ {
		rel = filepath.Join(rel, strings.Repeat(string(rune('a'+i)), 250))
	}
	file := strings.Repeat("f", 4095-len(rel)-1-5) // a relative path of 4090 bytes
	if err := os.MkdirAll(filepath.Join(dir, rel), 0o777); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // the absolute path is too long for a system call
	if err := os.WriteFile(filepath.Join(rel, file), []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if len(dir)+1+len(rel)+1+len(file) <= 4096 {
		t.Skipf("the temporary directory's path is too short (%d bytes) to pass PATH_MAX", len(dir))
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "deep")
	ageFiles(t, dir, time.Hour)
	checkSnapshot(t, dir)
	checkSnapshot(t, dir) // cached listings
	checkSnapshot(t, dir)
}

// TestListingDirectoryReplacedMidWalk: a cached directory replaced by a file or a symlink
// after its parent was read makes the walk start again, not fail (found in review).
func TestListingDirectoryReplacedMidWalk(t *testing.T) {
	for _, repl := range []string{"file", "symlink"} {
		t.Run(repl, func(t *testing.T) {
			dir := newRepo(t)
			write(t, dir, "top", "t")
			write(t, dir, "d/x.txt", "x")
			ageFiles(t, dir, time.Hour)
			checkSnapshot(t, dir)
			checkSnapshot(t, dir)
			s := openSnapshotter(t, dir)
			subs, err := s.readDir(subdir{node: &node{}, tracked: s.tracked.all()}, newScratch())
			if err != nil || len(subs) != 1 {
				t.Fatalf("reading the top: %v, %v", subs, err)
			}
			os.RemoveAll(filepath.Join(dir, "d"))
			if repl == "file" {
				write(t, dir, "d", "now a file")
			} else {
				os.Symlink("top", filepath.Join(dir, "d"))
			}
			if _, err := s.readDir(subs[0], newScratch()); err != nil && !errors.Is(err, errRetry) {
				t.Fatalf("reading the replaced directory: %v, want a retry", err)
			}
			checkSnapshot(t, dir) // and the snapshot taken again is git's tree
		})
	}
}

// needListings skips a test of cached listings where they are not used: outside Linux, or on
// a file system listingDevice does not trust.
func needListings(t *testing.T, dir string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("cached listings are used on Linux only")
	}
	if _, ok := listingDevice(dir); !ok {
		t.Skip("the temporary directory's file system keeps no cached listings")
	}
}
