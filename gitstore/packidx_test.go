package gitstore

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestPackIndexMatchesGit: every object git verify-pack lists is found at the offset git
// gives, in an index as git writes it and in one whose offsets are all 64-bit (what a pack
// over 2 GB has); FindHash inverts FindOffset, and Entries and EntriesByOffset list each
// object once. A version 1 index is refused with the fix.
func TestPackIndexMatchesGit(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	odbHistory(t, dir, 12)
	refsGit(t, dir, "gc", "-q", "--prune=now")
	idxPath := packIndexPath(t, dir)
	packPath := strings.TrimSuffix(idxPath, ".idx") + ".pack"
	want := map[plumbing.Hash]int64{}
	for _, line := range strings.Split(refsGit(t, dir, "verify-pack", "-v", idxPath), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || len(f[0]) != 40 {
			continue
		}
		off, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			t.Fatalf("verify-pack line %q", line)
		}
		want[plumbing.NewHash(f[0])] = off
	}
	if len(want) < 30 {
		t.Fatalf("only %d objects in the pack", len(want))
	}
	large := filepath.Join(t.TempDir(), "large.idx")
	refsGit(t, dir, "index-pack", "--index-version=2,1", "-o", large, packPath) // every offset past 1 in the 64-bit table
	if a, b := fileSize(t, idxPath), fileSize(t, large); b != a+8*int64(len(want)) {
		t.Fatalf("index of %d bytes with 64-bit offsets, %d without: not one per object", b, a)
	}
	v1 := filepath.Join(t.TempDir(), "v1.idx")
	refsGit(t, dir, "index-pack", "--index-version=1", "-o", v1, packPath)
	if _, err := openPackIndex(v1); !errors.Is(err, errPackIdxFormat) || !strings.Contains(err.Error(), "--index-version=2") {
		t.Fatalf("version 1 index: %v", err)
	}
	for name, path := range map[string]string{"as git writes it": idxPath, "64-bit offsets": large} {
		t.Run(name, func(t *testing.T) {
			idx, err := openPackIndex(path)
			if err != nil {
				t.Fatal(err)
			}
			for h, off := range want {
				if got, err := idx.FindOffset(h); err != nil || got != off {
					t.Fatalf("FindOffset(%s) = %d, %v; git says %d", h, got, err, off)
				}
				if got, err := idx.FindHash(off); err != nil || got != h {
					t.Fatalf("FindHash(%d) = %s, %v; want %s", off, got, err, h)
				}
				if ok, _ := idx.Contains(h); !ok {
					t.Fatalf("Contains(%s) = false", h)
				}
			}
			missing := plumbing.NewHash("17" + strings.Repeat("0", 38))
			if ok, _ := idx.Contains(missing); ok {
				t.Fatal("Contains a missing object")
			}
			if _, err := idx.FindHash(1); err == nil {
				t.Fatal("FindHash of an offset no object starts at")
			}
			for _, byOffset := range []bool{false, true} {
				iter, _ := idx.Entries()
				if byOffset {
					iter, _ = idx.EntriesByOffset()
				}
				seen, last := map[plumbing.Hash]bool{}, int64(-1)
				for e, err := iter.Next(); err == nil; e, err = iter.Next() {
					if seen[e.Hash] || want[e.Hash] != int64(e.Offset) {
						t.Fatalf("entry %s at %d: seen %v, git says %d", e.Hash, e.Offset, seen[e.Hash], want[e.Hash])
					}
					if byOffset && int64(e.Offset) <= last {
						t.Fatalf("EntriesByOffset out of order at %d", e.Offset)
					}
					seen[e.Hash], last = true, int64(e.Offset)
				}
				if len(seen) != len(want) {
					t.Fatalf("iterated %d entries, git lists %d", len(seen), len(want))
				}
			}
		})
	}
}

// FuzzPackIndex: any bytes are refused or looked up in without reading out of bounds.
func FuzzPackIndex(f *testing.F) {
	empty := append(append([]byte{}, packIdxMagic...), make([]byte, packIdxFanout+40)...)
	f.Add(empty)
	one := append([]byte{}, packIdxMagic...)
	fanout := make([]byte, packIdxFanout)
	for i := 0x17; i < 256; i++ {
		binary.BigEndian.PutUint32(fanout[4*i:], 1)
	}
	one = append(one, fanout...)
	one = append(one, append([]byte{0x17}, make([]byte, 19)...)...) // the name
	one = append(one, 0, 0, 0, 0, 0x80, 0, 0, 0)                    // its CRC, a 64-bit offset
	one = append(one, 0, 0, 0, 0, 0, 0, 0, 12)                      // the offset
	one = append(one, make([]byte, 40)...)
	f.Add(one)
	f.Fuzz(func(t *testing.T, data []byte) {
		x := &packIndex{data: data}
		if x.check() != nil {
			return
		}
		for _, h := range []plumbing.Hash{{}, {0x17}, {0xff, 0xff}} {
			x.Contains(h)
			x.FindCRC32(h)
			if off, err := x.FindOffset(h); err == nil {
				x.FindHash(off)
			}
		}
		for _, byOffset := range []bool{false, true} {
			iter, _ := x.Entries()
			if byOffset {
				iter, _ = x.EntriesByOffset()
			}
			for _, err := iter.Next(); err == nil; _, err = iter.Next() {
			}
		}
	})
}

// TestMapFile: a mapped file reads as its bytes; an empty one maps to nothing.
func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"pack index bytes", ""} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		data, closeFn, err := mapFile(p)
		if err != nil || string(data) != content {
			t.Fatalf("mapFile = %q, %v; want %q", data, err, content)
		}
		if err := closeFn(); err != nil {
			t.Fatal(err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestPackIndexWithoutPackUnmapped: an index whose pack cannot be opened (a repack or prune
// removing the pack first, or a crash between them) is left out, and its mapping released:
// every look-up of a missing object rescans, and each would map the index again for good.
func TestPackIndexWithoutPackUnmapped(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps")
	}
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	odbHistory(t, dir, 3)
	refsGit(t, dir, "gc", "-q", "--prune=now")
	idxPath := packIndexPath(t, dir)
	if err := os.Remove(strings.TrimSuffix(idxPath, ".idx") + ".pack"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if r.HasObject(Hash{byte(i), 1}) {
			t.Fatal("found a missing object")
		}
	}
	maps, _ := os.ReadFile("/proc/self/maps")
	if n := strings.Count(string(maps), filepath.Base(idxPath)); n != 0 {
		t.Fatalf("the index of a missing pack is mapped %d times", n)
	}
}
