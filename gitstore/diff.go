package gitstore

// ChangedPaths lists the slash-separated paths whose entries differ between trees a and b
// (added, removed, or changed in mode or content), descending only into subtrees that differ.
// ZeroHash stands for the empty tree.
func (r *Repo) ChangedPaths(a, b Hash) ([]string, error) {
	changed, err := r.ChangedEntries(a, b)
	out := make([]string, len(changed))
	for i, c := range changed {
		out[i] = c.Path
	}
	return out, err
}

// Changed is one path that differs between two trees, with its entry on each side (Mode 0
// where the side has none, or has a tree there).
type Changed struct {
	Path     string
	Old, New TreeEntry
}

// ChangedEntries is ChangedPaths with each path's entries, so that a caller reads the
// objects without looking the paths up again.
func (r *Repo) ChangedEntries(a, b Hash) ([]Changed, error) {
	var out []Changed
	err := r.diffTrees(a, b, "", &out)
	return out, err
}

func (r *Repo) diffTrees(a, b Hash, prefix string, out *[]Changed) error {
	if a == b {
		return nil
	}
	ea, err := r.treeOrEmpty(a)
	if err != nil {
		return err
	}
	eb, err := r.treeOrEmpty(b)
	if err != nil {
		return err
	}
	byName := make(map[string]TreeEntry, len(ea))
	for _, e := range ea {
		byName[e.Name] = e
	}
	for _, e := range eb {
		old, ok := byName[e.Name]
		delete(byName, e.Name)
		if ok && old == e {
			continue
		}
		if err := r.diffEntry(old, ok, e, true, prefix, out); err != nil {
			return err
		}
	}
	for _, old := range byName {
		if err := r.diffEntry(old, true, TreeEntry{}, false, prefix, out); err != nil {
			return err
		}
	}
	return nil
}

// diffEntry records one differing name, descending when either side is a tree.
func (r *Repo) diffEntry(old TreeEntry, hasOld bool, cur TreeEntry, hasCur bool, prefix string, out *[]Changed) error {
	name := cur.Name
	if !hasCur {
		name = old.Name
	}
	path := prefix + name
	oldTree, curTree := ZeroHash, ZeroHash
	if hasOld && old.Mode == ModeTree {
		oldTree = old.Hash
	}
	if hasCur && cur.Mode == ModeTree {
		curTree = cur.Hash
	}
	if (hasOld && old.Mode != ModeTree) || (hasCur && cur.Mode != ModeTree) {
		c := Changed{Path: path}
		if hasOld && old.Mode != ModeTree {
			c.Old = old
		}
		if hasCur && cur.Mode != ModeTree {
			c.New = cur
		}
		*out = append(*out, c)
	}
	if !oldTree.IsZero() || !curTree.IsZero() {
		return r.diffTrees(oldTree, curTree, path+"/", out)
	}
	return nil
}

func (r *Repo) treeOrEmpty(h Hash) ([]TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	return r.ReadTree(h)
}
