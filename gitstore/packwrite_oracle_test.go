package gitstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEncodePackAgainstGit: packs of objects of many sizes (empty, sizes at each boundary
// of a pack entry header's size bytes, over 64 KiB, incompressible) and of every
// compression level are taken by git whole: verify-pack, an index git builds itself from the
// pack that is byte for byte ours, and cat-file reading each object back.
func TestEncodePackAgainstGit(t *testing.T) {
	refsHermetic(t)
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 15, 16, 17, 2047, 2048, 2049, 1<<18 - 1, 1 << 18, 1<<18 + 1, 70000, 1 << 20}
	for _, level := range []int{-1, 0, 1, 9} {
		t.Run(fmt.Sprint(level), func(t *testing.T) {
			_, dir := refsNewRepo(t)
			var objects []batchObject
			seen := map[Hash]bool{}
			add := func(typ ObjectType, data []byte) {
				h := HashObject(typ, data)
				if !seen[h] {
					seen[h] = true
					objects = append(objects, batchObject{h: h, t: typ, data: data})
				}
			}
			for i, n := range sizes {
				random := make([]byte, n)
				for j := range random {
					random[j] = byte(rng.Uint32())
				}
				add(BlobObject, random)
				add(BlobObject, bytes.Repeat([]byte{byte('a' + i)}, n))
			}
			var entries []TreeEntry
			for i, o := range objects {
				entries = append(entries, TreeEntry{Name: fmt.Sprintf("f%03d", i), Mode: 0o100644, Hash: o.h})
			}
			add(TreeObject, EncodeTree(entries))
			pack, idx, name, err := encodePack(objects, level)
			if err != nil {
				t.Fatal(err)
			}
			packDir := filepath.Join(dir, ".git", "objects", "pack")
			os.MkdirAll(packDir, 0o777)
			base := filepath.Join(packDir, "pack-"+name)
			os.WriteFile(base+".pack", pack, 0o444)
			os.WriteFile(base+".idx", idx, 0o444)
			refsGit(t, dir, "verify-pack", "-v", base+".idx")
			gitIdx := filepath.Join(t.TempDir(), "git.idx")
			refsGit(t, dir, "index-pack", "-o", gitIdx, base+".pack")
			if want, _ := os.ReadFile(gitIdx); !bytes.Equal(idx, want) {
				t.Errorf("our index differs from the one git builds from the pack")
			}
			refsGit(t, dir, "fsck", "--strict", "--no-dangling")
			for _, o := range objects {
				got := refsGit(t, dir, "cat-file", o.t.String(), o.h.String())
				if o.t == BlobObject && got != strings.TrimRight(string(o.data), "\n") {
					t.Errorf("git reads %s back differently", o.h)
				}
			}
		})
	}
}
