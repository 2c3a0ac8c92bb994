package gitstore

import (
	"bytes"
	"crypto/sha1"
	"os"
	"path/filepath"
	"testing"
)

// idxFuzzSeeds returns real index files: versions 2, 3 and 4, conflicts, intent-to-add,
// skip-worktree, long paths, and the TREE, REUC, UNTR, link and sdir extensions.
func idxFuzzSeeds(f *testing.F) [][]byte {
	refsHermetic(f)
	dir := f.TempDir()
	refsGit(f, dir, "init", "-q")
	read := func() []byte {
		raw, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		return raw
	}
	var seeds [][]byte
	idxWriteFiles(f, dir, map[string]string{"a": "a\n", "b/c": "c\n", "b/d/e": "e\n", "tab\tname": "t", "\xff": "x", "z": "z\n"})
	refsGit(f, dir, "add", "-A")
	refsGit(f, dir, "update-index", "--index-version", "2")
	seeds = append(seeds, read())
	refsGit(f, dir, "commit", "-q", "-m", "one")
	idxWriteFiles(f, dir, map[string]string{"ita": "i"})
	refsGit(f, dir, "add", "-N", "ita")
	refsGit(f, dir, "update-index", "--skip-worktree", "z")
	seeds = append(seeds, read())
	refsGit(f, dir, "update-index", "--index-version", "4")
	seeds = append(seeds, read())
	refsGit(f, dir, "update-index", "--no-skip-worktree", "z")
	refsGit(f, dir, "rm", "-q", "--cached", "ita")
	refsGit(f, dir, "update-index", "--untracked-cache")
	refsGit(f, dir, "status", "--porcelain")
	seeds = append(seeds, read())
	refsGit(f, dir, "update-index", "--split-index")
	seeds = append(seeds, read())
	refsGit(f, dir, "update-index", "--no-split-index", "--index-version", "3")
	refsGit(f, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
	refsGit(f, dir, "sparse-checkout", "set", "b")
	seeds = append(seeds, read())
	refsGit(f, dir, "sparse-checkout", "disable")
	// A conflict, then its resolution (resolve-undo).
	refsGit(f, dir, "checkout", "-q", "-b", "side")
	idxWriteFiles(f, dir, map[string]string{"a": "side\n"})
	refsGit(f, dir, "commit", "-q", "-am", "side")
	refsGit(f, dir, "checkout", "-q", "main")
	idxWriteFiles(f, dir, map[string]string{"a": "main\n"})
	refsGit(f, dir, "commit", "-q", "-am", "main")
	refsGitErr(dir, "merge", "-q", "side")
	refsGit(f, dir, "update-index", "--index-version", "4")
	seeds = append(seeds, read())
	refsGit(f, dir, "add", "a")
	seeds = append(seeds, read())
	return seeds
}

func FuzzParseIndex(f *testing.F) {
	for _, s := range idxFuzzSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idxFuzzCheck(t, data)
		// With a correct checksum the fuzzer gets past the hash into the parser proper.
		if len(data) >= indexHeaderLen+sha1.Size {
			fixed := bytes.Clone(data)
			sum := sha1.Sum(fixed[:len(fixed)-sha1.Size])
			copy(fixed[len(fixed)-sha1.Size:], sum[:])
			idxFuzzCheck(t, fixed)
		}
	})
}

func idxFuzzCheck(t *testing.T, data []byte) {
	orig := bytes.Clone(data)
	idx, err := ParseIndex(data)
	if !bytes.Equal(orig, data) {
		t.Fatal("ParseIndex modified its input")
	}
	if err != nil {
		if idx != nil {
			t.Fatal("index and error both returned")
		}
		return
	}
	if idx.Version < 2 || idx.Version > 4 {
		t.Fatalf("accepted version %d", idx.Version)
	}
	if uint32(len(idx.Entries)) != be32(data[8:]) {
		t.Fatalf("%d entries, header says %d", len(idx.Entries), be32(data[8:]))
	}
	for _, e := range idx.Entries {
		if e.Stage > 3 {
			t.Fatalf("stage %d", e.Stage)
		}
	}
	// Kept compact, as ReadIndex keeps it (checksum unverified), it decodes to the same entries.
	compact, err := parseIndex(bytes.Clone(data), false, true)
	if err != nil {
		t.Fatalf("compact parse failed where the full one passed: %v", err)
	}
	if compact.Len() != len(idx.Entries) {
		t.Fatalf("compact index has %d entries, full one %d", compact.Len(), len(idx.Entries))
	}
	for i, e := range idx.Entries {
		if got := compact.Entry(i); got != e || compact.Path(i) != e.Path {
			t.Fatalf("entry %d: compact %+v (path %q), full %+v", i, got, compact.Path(i), e)
		}
	}
}
