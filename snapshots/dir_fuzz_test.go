//go:build linux

package snapshots

import (
	"encoding/binary"
	"testing"
)

// dirent64 builds one linux_dirent64 record.
func dirent64(name string, typ byte) []byte {
	reclen := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, reclen)
	binary.LittleEndian.PutUint64(b, 1)
	binary.LittleEndian.PutUint16(b[16:], uint16(reclen))
	b[18] = typ
	copy(b[19:], name)
	return b
}

// FuzzParseDirents: arbitrary getdents buffers never panic, never yield "." or "..", and
// names never contain NUL.
func FuzzParseDirents(f *testing.F) {
	f.Add(append(append(dirent64(".", 4), dirent64("..", 4)...), dirent64("file.go", 8)...))
	f.Add(dirent64("a b\tc", 10))
	f.Fuzz(func(t *testing.T, buf []byte) {
		for _, d := range parseDirents(buf, nil) {
			if d.name == "." || d.name == ".." {
				t.Fatalf("listed %q", d.name)
			}
			for i := 0; i < len(d.name); i++ {
				if d.name[i] == 0 {
					t.Fatalf("name %q contains NUL", d.name)
				}
			}
		}
	})
}

func TestParseDirents(t *testing.T) {
	buf := append(append(dirent64(".", 4), dirent64("dir", 4)...), append(dirent64("f", 8), dirent64("l", 10)...)...)
	got := parseDirents(buf, nil)
	want := []dirent{{"dir", kindDir}, {"f", kindFile}, {"l", kindSymlink}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: got %v, want %v", i, got[i], want[i])
		}
	}
}
