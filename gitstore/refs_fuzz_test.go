package gitstore

import (
	"strings"
	"testing"
)

// FuzzPackedRefs checks that the packed-refs readers never panic and agree with each other: a
// ref that listPacked returns once is found by packedLookup with the same value.
func FuzzPackedRefs(f *testing.F) {
	f.Add([]byte("# pack-refs with: peeled fully-peeled sorted \n" +
		"1111111111111111111111111111111111111111 refs/heads/main\n" +
		"2222222222222222222222222222222222222222 refs/tags/v1\n" +
		"^3333333333333333333333333333333333333333\n" +
		"4444444444444444444444444444444444444444 refs/loop/x"))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa refs/b\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb refs/a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		refs, err := listPacked(data, "")
		if err != nil {
			return
		}
		count := map[string]int{}
		for _, r := range refs {
			count[r.Name]++
		}
		for _, r := range refs {
			if count[r.Name] != 1 {
				continue
			}
			h, ok, err := packedLookup(data, r.Name)
			if err != nil || !ok || h != r.Hash {
				t.Fatalf("listPacked has %s=%s, packedLookup gives %s, %v, %v", r.Name, r.Hash, h, ok, err)
			}
			if c := packedChild(data, r.Name); c != "" && !strings.HasPrefix(c, r.Name+"/") {
				t.Fatalf("packedChild(%s) = %q", r.Name, c)
			}
		}
		for _, name := range []string{"refs/heads/main", "refs/a", "refs/loop/x"} {
			packedLookup(data, name)
			packedChild(data, name)
		}
	})
}
