package gitstore

import (
	"fmt"
	"sort"
	"strings"
)

// EditTree returns the tree that is root (ZeroHash for an empty tree) with each path in blobs
// set to that blob (mode 100644), creating and rewriting only the subtrees on those paths.
// The rewritten trees are stored with WriteUniqueObject: callers set new blobs.
func (r *Repo) EditTree(root Hash, blobs map[string]Hash) (Hash, error) {
	var entries []TreeEntry
	if !root.IsZero() {
		var err error
		if entries, err = r.ReadTree(root); err != nil {
			return ZeroHash, err
		}
	}
	groups := map[string]map[string]Hash{}
	for path, h := range blobs {
		dir, rest, nested := strings.Cut(path, "/")
		if !nested {
			entries = setEntry(entries, TreeEntry{Name: path, Mode: ModeFile, Hash: h})
			continue
		}
		if groups[dir] == nil {
			groups[dir] = map[string]Hash{}
		}
		groups[dir][rest] = h
	}
	dirs := make([]string, 0, len(groups))
	for d := range groups {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		sub := ZeroHash
		for _, e := range entries {
			if e.Name == dir && e.Mode == ModeTree {
				sub = e.Hash
			}
		}
		h, err := r.EditTree(sub, groups[dir])
		if err != nil {
			return ZeroHash, fmt.Errorf("edit tree %q: %w", dir, err)
		}
		entries = setEntry(entries, TreeEntry{Name: dir, Mode: ModeTree, Hash: h})
	}
	SortTreeEntries(entries)
	return r.WriteUniqueObject(TreeObject, EncodeTree(entries))
}

func setEntry(es []TreeEntry, e TreeEntry) []TreeEntry {
	for i := range es {
		if es[i].Name == e.Name {
			es[i] = e
			return es
		}
	}
	return append(es, e)
}
