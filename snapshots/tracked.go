package snapshots

import (
	"sort"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// trackedIndex answers questions about the index: which paths are tracked, and which
// directories contain tracked paths. Paths are kept sorted, as the index stores them, so a
// directory's tracked paths are one contiguous span: the walk narrows the span as it descends
// and looks names up inside it, with no map of every path to build at start-up. Entries stay
// encoded in the index as read (gitstore's compact index) and are decoded when looked up.
type trackedIndex struct {
	idx *gitstore.Index
	// pos maps the sorted, distinct paths to the index's entries: pos[i] is path i's entry
	// (stage 0, else its last stage). Nil when that is the identity, as for any index git
	// wrote without a conflict.
	pos     []uint32
	modTime time.Time
}

func newTrackedIndex(idx *gitstore.Index) *trackedIndex {
	t := &trackedIndex{idx: idx, modTime: idx.ModTime}
	n := idx.Len()
	identity := true
	for i := 1; i < n && identity; i++ {
		identity = idx.Path(i-1) < idx.Path(i) // sorted, each path once
	}
	if identity {
		return t
	}
	all := make([]uint32, n)
	for i := range all {
		all[i] = uint32(i)
	}
	// git always writes the index sorted; anything else is read as if it were
	sort.SliceStable(all, func(i, j int) bool { return idx.Path(int(all[i])) < idx.Path(int(all[j])) })
	t.pos = make([]uint32, 0, n)
	for _, i := range all {
		if k := len(t.pos) - 1; k >= 0 && idx.Path(int(t.pos[k])) == idx.Path(int(i)) {
			if idx.Entry(int(t.pos[k])).Stage != 0 { // a conflict's stages: stage 0 wins, else the last
				t.pos[k] = i
			}
			continue
		}
		t.pos = append(t.pos, i)
	}
	return t
}

// len is the number of distinct tracked paths.
func (t *trackedIndex) len() int {
	if t.pos == nil {
		return t.idx.Len()
	}
	return len(t.pos)
}

// path is the i-th tracked path in sorted order.
func (t *trackedIndex) path(i int) string {
	if t.pos == nil {
		return t.idx.Path(i)
	}
	return t.idx.Path(int(t.pos[i]))
}

// entry decodes the index entry of the i-th tracked path.
func (t *trackedIndex) entry(i int) gitstore.IndexEntry {
	if t.pos == nil {
		return t.idx.Entry(i)
	}
	return t.idx.Entry(int(t.pos[i]))
}

// trackedSpan is the part of the index below one directory: paths[lo:hi].
type trackedSpan struct {
	t      *trackedIndex
	lo, hi int
}

// all is the whole index, the root directory's span.
func (t *trackedIndex) all() trackedSpan {
	return trackedSpan{t: t, hi: t.len()}
}

// search returns the first position in the span whose path is >= key.
func (sp trackedSpan) search(key string) int {
	lo, hi := sp.lo, sp.hi
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sp.t.path(mid) < key {
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

// entry decodes into e the index entry of path p, which lies in the span's directory, and
// reports whether there is one.
func (sp trackedSpan) entry(p string, e *gitstore.IndexEntry) bool {
	if i := sp.search(p); i < sp.hi && sp.t.path(i) == p {
		*e = sp.t.entry(i)
		return true
	}
	return false
}
