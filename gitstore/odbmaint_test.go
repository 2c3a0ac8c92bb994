package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadObjectAfterGitHousekeeping: every pack git's housekeeping writes is read, by a
// repository opened before it ran (which must look again for an object it misses) and by
// one opened after: each task of `git maintenance run`, and the repacks and gc variants that
// write multi-pack-indexes, bitmaps, cruft packs, .keep and .promisor packs. git fsck stays
// clean. The prefetch task is left out: it fetches from remotes, and packs what it fetches
// as a fetch does (pack-<hash>), which the other cases cover.
func TestReadObjectAfterGitHousekeeping(t *testing.T) {
	tests := []struct {
		name   string
		git    [][]string
		leaves string // a file in objects/pack that shows git did what the case is about
	}{
		// packs loose objects into loose-<hash>.pack; the second run prunes the loose copies
		{"maintenance loose-objects", [][]string{{"maintenance", "run", "--task=loose-objects"}, {"maintenance", "run", "--task=loose-objects"}}, "loose-*.pack"},
		{"maintenance gc", [][]string{{"maintenance", "run", "--task=gc"}}, "pack-*.pack"},
		{"maintenance incremental-repack", [][]string{{"maintenance", "run", "--task=incremental-repack"}, {"maintenance", "run", "--task=incremental-repack"}}, "multi-pack-index"},
		{"maintenance commit-graph", [][]string{{"maintenance", "run", "--task=commit-graph"}}, "pack-*.pack"},
		{"maintenance pack-refs", [][]string{{"maintenance", "run", "--task=pack-refs"}}, "pack-*.pack"},
		{"repack with a multi-pack-index and bitmap", [][]string{{"repack", "-a", "-d", "-q", "--write-midx", "--write-bitmap-index"}}, "multi-pack-index-*.bitmap"},
		{"geometric repack", [][]string{{"repack", "-d", "-q", "--geometric=2"}}, "pack-*.pack"},
		{"gc with a cruft pack", [][]string{{"gc", "-q", "--cruft"}}, "pack-*.mtimes"},
		{"cruft repack", [][]string{{"repack", "-d", "-q", "--cruft"}}, "pack-*.mtimes"},
		{"repack split by size", [][]string{{"repack", "-a", "-d", "-q", "--max-pack-size=1k"}}, "pack-*.pack"},
		{"kept and promisor packs", [][]string{{"repack", "-d", "-q"}, {"!mark"}, {"repack", "-a", "-d", "-q"}}, "pack-*.promisor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refsHermetic(t)
			_, dir := refsNewRepo(t)
			odbHistory(t, dir, 4)
			refsGit(t, dir, "repack", "-d", "-q")
			odbHistory(t, dir, 3) // loose again
			unreachable := filepath.Join(t.TempDir(), "u")
			if err := os.WriteFile(unreachable, []byte("an object no commit names\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			refsGit(t, dir, "hash-object", "-w", unreachable)
			before, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkAllObjects(t, before, dir) // its packs listed, now to be replaced under it
			for _, args := range tt.git {
				if args[0] == "!mark" {
					markPacks(t, dir)
					continue
				}
				refsGit(t, dir, args...)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", tt.leaves)); len(m) == 0 {
				t.Fatalf("git left no %s in objects/pack", tt.leaves)
			}
			checkAllObjects(t, before, dir)
			after, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkAllObjects(t, after, dir)
			refsGit(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

// markPacks gives the first pack in dir's repository a .keep file and the second, if any, a
// .promisor file, as git's fetch leaves them.
func markPacks(t *testing.T, dir string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	for i, ext := range []string{".keep", ".promisor"} {
		if i < len(packs) {
			if err := os.WriteFile(strings.TrimSuffix(packs[i], ".pack")+ext, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
