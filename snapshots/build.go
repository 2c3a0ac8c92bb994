package snapshots

import (
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
)

// buildTree writes the tree of n and its subdirectories bottom-up and records every file in
// the next stat cache. Empty directories produce no tree, as in git.
func (s *snapshotter) buildTree(n *node) (gitstore.Hash, error) {
	entries := make([]gitstore.TreeEntry, 0, len(n.files)+len(n.dirs))
	for _, f := range n.files {
		entries = append(entries, gitstore.TreeEntry{Name: f.name, Mode: f.mode, Hash: f.hash})
		s.remember(f)
	}
	for _, d := range n.dirs {
		h, err := s.buildTree(d)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		if !h.IsZero() {
			_, name := splitPath(d.rel)
			entries = append(entries, gitstore.TreeEntry{Name: name, Mode: gitstore.ModeTree, Hash: h})
		}
	}
	if len(entries) == 0 && n.rel != "" {
		return gitstore.ZeroHash, nil
	}
	gitstore.SortTreeEntries(entries)
	data := gitstore.EncodeTree(entries)
	h := gitstore.HashObject(gitstore.TreeObject, data)
	if _, known := s.cache.trees[h]; !known {
		if _, err := s.repo.WriteObject(gitstore.TreeObject, data); err != nil {
			return gitstore.ZeroHash, fmt.Errorf("snapshot: write tree %q: %w", n.rel, err)
		}
	}
	s.newCache.trees[h] = struct{}{}
	return h, nil
}

// remember adds a hashed file to the next stat cache, unless it changed too recently to be
// trusted by stat data alone (a write in the same timestamp tick would go unseen).
func (s *snapshotter) remember(f *fileEntry) {
	if f.mode == gitstore.ModeGitlink || f.stat.mtimeSec == 0 {
		return
	}
	if f.stat.mtimeSec >= s.recent.Unix() {
		return
	}
	s.newCache.files[f.rel] = cachedFile{stat: f.stat, mode: f.mode, hash: f.hash}
}
