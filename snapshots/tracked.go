package snapshots

import (
	"sort"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// trackedIndex answers questions about the index: which paths are tracked, and which
// directories contain tracked paths. Paths are kept sorted, as the index stores them, so a
// directory's tracked paths are one contiguous span: the walk narrows the span as it descends
// and looks names up inside it, with no map of every path to build at start-up.
type trackedIndex struct {
	paths   []string               // sorted, each once
	entries []*gitstore.IndexEntry // entries[i] is paths[i]'s: stage 0, else its last stage
	modTime time.Time
}

func newTrackedIndex(idx *gitstore.Index) *trackedIndex {
	all := make([]*gitstore.IndexEntry, len(idx.Entries))
	sorted := true
	for i := range idx.Entries {
		all[i] = &idx.Entries[i]
		if i > 0 && idx.Entries[i-1].Path > idx.Entries[i].Path {
			sorted = false
		}
	}
	if !sorted { // git always writes the index sorted; anything else is read as if it were
		sort.SliceStable(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	}
	t := &trackedIndex{paths: make([]string, 0, len(all)), entries: make([]*gitstore.IndexEntry, 0, len(all)), modTime: idx.ModTime}
	for _, e := range all {
		if k := len(t.paths) - 1; k >= 0 && t.paths[k] == e.Path {
			if t.entries[k].Stage != 0 { // a conflict's stages: stage 0 wins, else the last
				t.entries[k] = e
			}
			continue
		}
		t.paths = append(t.paths, e.Path)
		t.entries = append(t.entries, e)
	}
	return t
}

// trackedSpan is the part of the index below one directory: paths[lo:hi].
type trackedSpan struct {
	t      *trackedIndex
	lo, hi int
}

// all is the whole index, the root directory's span.
func (t *trackedIndex) all() trackedSpan {
	return trackedSpan{t: t, hi: len(t.paths)}
}

// search returns the first position in the span whose path is >= key.
func (sp trackedSpan) search(key string) int {
	lo, hi := sp.lo, sp.hi
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sp.t.paths[mid] < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// under narrows the span to the paths inside directory dir, a directory within it.
func (sp trackedSpan) under(dir string) trackedSpan {
	// "dir/" up to, not including, "dir0": '0' follows '/' in byte order
	return trackedSpan{t: sp.t, lo: sp.search(dir + "/"), hi: sp.search(dir + "0")}
}

// empty reports whether no tracked path lies in the span.
func (sp trackedSpan) empty() bool { return sp.lo >= sp.hi }

// entry is the index entry of path p, which lies in the span's directory, or nil.
func (sp trackedSpan) entry(p string) *gitstore.IndexEntry {
	if i := sp.search(p); i < sp.hi && sp.t.paths[i] == p {
		return sp.t.entries[i]
	}
	return nil
}
