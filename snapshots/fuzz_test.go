package snapshots

import (
	"bytes"
	"slices"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// FuzzParseStatCache: any bytes either parse or are refused; a parsed cache encodes and
// parses back to the same content.
func FuzzParseStatCache(f *testing.F) {
	c := newStatCache()
	c.root = gitstore.HashObject(gitstore.TreeObject, nil)
	c.dirs[""] = &cachedDir{tree: c.root, entries: 2, files: []cachedFile{
		{name: "a.go", mode: gitstore.ModeFile, stat: fileStat{size: 3, mtimeSec: 1, ino: 7}},
		{name: "link", mode: gitstore.ModeSymlink},
	}}
	c.dirs["sub dir"] = &cachedDir{entries: 0}
	c.dirs["listed"] = &cachedDir{entries: 1, listing: encodeListing([]dirent{{"f", kindFile}, {"d", kindDir}}),
		dirStat: fileStat{mode: dirStatMode, size: 4096, mtimeSec: 5, mtimeNsec: 6, ctimeSec: 7, ctimeNsec: 8, ino: 9, dev: 10}}
	f.Add(c.encode())
	f.Add([]byte(cacheMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseStatCache(data)
		if err != nil {
			return
		}
		enc := c.encode()
		if len(enc) != c.encodedSize() {
			t.Fatalf("encoded %d bytes; encodedSize said %d", len(enc), c.encodedSize())
		}
		again, err := parseStatCache(enc)
		if err != nil {
			t.Fatalf("re-encoded cache does not parse: %v", err)
		}
		if len(again.dirs) != len(c.dirs) || again.root != c.root {
			t.Fatalf("round trip changed the cache")
		}
		for path, d := range c.dirs {
			d2 := again.dirs[path]
			if d2 == nil || d2.tree != d.tree || !slices.Equal(d2.fileList(), d.fileList()) || d2.listing != d.listing || d2.dirStat != d.dirStat {
				t.Fatalf("round trip changed directory %q", path)
			}
		}
	})
}

// FuzzAsksConversion: the .gitattributes scan never panics and sees a plain "text" attribute.
func FuzzAsksConversion(f *testing.F) {
	f.Add([]byte("*.txt text eol=lf\n*.bin binary\n"))
	f.Add([]byte("# comment\n*.png -text\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		asksConversion(data)
		if !asksConversion(append(bytes.Clone(data), "\n* text\n"...)) {
			t.Fatal("a `* text` line was not seen")
		}
	})
}
