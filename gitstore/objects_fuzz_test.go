package gitstore

import (
	"bytes"
	"testing"
	"time"
)

// FuzzParseCommit: no panics; a parsed commit re-encodes to a commit that parses the same.
func FuzzParseCommit(f *testing.F) {
	c := &Commit{Tree: HashObject(TreeObject, nil), Parents: []Hash{HashObject(BlobObject, []byte("p"))},
		Author:    Signature{Name: "A U Thor", Email: "a@example.com", When: time.Unix(1700000000, 0).UTC()},
		Committer: Signature{Name: "C", Email: "c@example.com", When: time.Unix(1700000001, 0).UTC()},
		Message:   "subject\n\nLoop-Name: x\n"}
	f.Add(c.Encode())
	f.Add([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nmsg"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCommit(data)
		if err != nil {
			return
		}
		again, err := ParseCommit(c.Encode())
		if err != nil {
			t.Fatalf("re-encoded commit does not parse: %v", err)
		}
		if again.Tree != c.Tree || len(again.Parents) != len(c.Parents) {
			t.Fatalf("round trip changed tree or parents")
		}
	})
}

// FuzzParseTree: no panics; a parsed tree re-encodes to the same bytes.
func FuzzParseTree(f *testing.F) {
	es := []TreeEntry{{Name: "a", Mode: ModeFile}, {Name: "dir", Mode: ModeTree}, {Name: "x y", Mode: ModeSymlink}}
	SortTreeEntries(es)
	f.Add(EncodeTree(es))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := ParseTree(data)
		if err != nil {
			return
		}
		if enc := EncodeTree(es); !bytes.Equal(enc, data) {
			// Modes with leading zeros re-encode shorter; anything else is a bug.
			if len(enc) > len(data) {
				t.Fatalf("re-encoded tree is longer than the input")
			}
		}
	})
}

// FuzzParseConfig: any input parses or fails with an error, never a panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("[loop]\n\tmaxIterations = 20\n[gate \"build\"]\n\trun = go build ./...\n"))
	f.Add([]byte("[include]\n\tpath = other\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("fuzz", data)
		if err == nil {
			c.Get("loop", "", "maxiterations")
			c.Subsections("gate")
		}
	})
}
