package gitstore

import (
	"errors"
	"fmt"
)

// CheckWhole reports whether every object tree names, directly or through its subtrees, is
// stored, as git fsck's connectivity check would; the error (ErrObjectNotFound) names the
// first that is not. base is a tree known to be whole (one a ref reaches, or ZeroHash for
// none): what tree shares with it at the same path is not looked at, so the check costs what
// changed between them. Gitlinks name other repositories' commits and are not looked for.
func (r *Repo) CheckWhole(tree, base Hash) error {
	if tree == base {
		return nil
	}
	entries, err := r.ReadTree(tree)
	if errors.Is(err, ErrObjectNotFound) {
		return fmt.Errorf("tree %s: %w", tree, ErrObjectNotFound)
	}
	if err != nil {
		return err
	}
	var old map[string]TreeEntry
	if !base.IsZero() {
		if baseEntries, err := r.ReadTree(base); err == nil {
			old = make(map[string]TreeEntry, len(baseEntries))
			for _, e := range baseEntries {
				old[e.Name] = e
			}
		}
	}
	for _, e := range entries {
		prev, ok := old[e.Name]
		switch {
		case ok && prev == e, e.Mode == ModeGitlink:
		case e.Mode == ModeTree:
			sub := ZeroHash
			if ok && prev.Mode == ModeTree {
				sub = prev.Hash
			}
			if err := r.CheckWhole(e.Hash, sub); err != nil {
				return err
			}
		case !r.HasObject(e.Hash):
			return fmt.Errorf("blob %s (%s): %w", e.Hash, e.Name, ErrObjectNotFound)
		}
	}
	return nil
}
