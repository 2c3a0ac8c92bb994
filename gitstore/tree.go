package gitstore

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// File modes as git records them in trees.
const (
	ModeFile    uint32 = 0o100644
	ModeExec    uint32 = 0o100755
	ModeSymlink uint32 = 0o120000
	ModeGitlink uint32 = 0o160000
	ModeTree    uint32 = 0o040000
)

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Name string
	Mode uint32
	Hash Hash
}

// SortTreeEntries sorts entries in git's tree order, where a subtree sorts as if its name
// ended in "/".
func SortTreeEntries(es []TreeEntry) {
	slices.SortFunc(es, compareTreeEntries)
}

func compareTreeEntries(a, b TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	return int(treeTail(a, n)) - int(treeTail(b, n))
}

// treeTail is the byte after the common prefix: the next name byte, or '/' for a tree that
// ends there, or 0 for a non-tree that ends there.
func treeTail(e TreeEntry, n int) byte {
	if n < len(e.Name) {
		return e.Name[n]
	}
	if e.Mode == ModeTree {
		return '/'
	}
	return 0
}

// EncodeTree serializes entries, which must already be in git's tree order.
func EncodeTree(es []TreeEntry) []byte {
	size := 0
	for _, e := range es {
		size += len(e.Name) + 28
	}
	buf := make([]byte, 0, size)
	for _, e := range es {
		buf = strconv.AppendUint(buf, uint64(e.Mode), 8)
		buf = append(buf, ' ')
		buf = append(buf, e.Name...)
		buf = append(buf, 0)
		buf = append(buf, e.Hash[:]...)
	}
	return buf
}

// ParseTree parses a tree object's content.
func ParseTree(data []byte) ([]TreeEntry, error) {
	var es []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("parse tree: bad mode")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("parse tree: bad mode %q", data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul <= 0 || len(data) < nul+21 {
			return nil, fmt.Errorf("parse tree: truncated entry")
		}
		e := TreeEntry{Name: string(data[:nul]), Mode: uint32(mode)}
		copy(e.Hash[:], data[nul+1:nul+21])
		es = append(es, e)
		data = data[nul+21:]
	}
	return es, nil
}

// ReadTree reads and parses a tree object.
func (r *Repo) ReadTree(h Hash) ([]TreeEntry, error) {
	data, err := r.ReadTyped(TreeObject, h)
	if err != nil {
		return nil, err
	}
	return ParseTree(data)
}

// ReadPath returns the blob at a slash-separated path inside tree root.
func (r *Repo) ReadPath(root Hash, path string) ([]byte, error) {
	h, err := r.LookupPath(root, path)
	if err != nil {
		return nil, err
	}
	return r.ReadTyped(BlobObject, h)
}

// LookupPath finds the object at a slash-separated path inside tree root.
func (r *Repo) LookupPath(root Hash, path string) (Hash, error) {
	e, err := r.LookupEntry(root, path)
	return e.Hash, err
}

// LookupEntry finds the entry (mode and object) at a slash-separated path inside tree root.
// A path that does not exist, or goes through something that is not a tree, is
// ErrObjectNotFound. The root itself is a tree entry.
func (r *Repo) LookupEntry(root Hash, path string) (TreeEntry, error) {
	cur := TreeEntry{Mode: ModeTree, Hash: root}
	for path != "" {
		name, rest, _ := cutSlash(path)
		if cur.Mode != ModeTree {
			return TreeEntry{}, fmt.Errorf("look up %q in tree %s: %q is not a directory there: %w", path, root, cur.Name, ErrObjectNotFound)
		}
		es, err := r.ReadTree(cur.Hash)
		if err != nil {
			return TreeEntry{}, err
		}
		found := false
		for _, e := range es {
			if e.Name == name {
				cur, found = e, true
				break
			}
		}
		if !found {
			return TreeEntry{}, fmt.Errorf("look up %q in tree %s: %w", path, root, ErrObjectNotFound)
		}
		path = rest
	}
	return cur, nil
}

func cutSlash(p string) (string, string, bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}
