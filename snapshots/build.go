package snapshots

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/git-loop/git-loop/gitstore"
)

// buildTree writes the tree of n and its subdirectories bottom-up. Empty directories produce
// no tree, as in git. A directory whose files all came unchanged from the stat cache, with
// as many entries as last time and only unchanged subdirectories, reuses its cached tree:
// this is what keeps an unchanged large tree cheap (git's cache-tree does the same).
func (s *snapshotter) buildTree(n *node) (gitstore.Hash, bool, error) {
	clean := true
	for _, f := range n.files {
		clean = clean && f.fromCache
	}
	count := len(n.files) + int(n.cachedFiles)
	for _, d := range n.dirs {
		h, dclean, err := s.buildTree(d)
		if err != nil {
			return gitstore.ZeroHash, false, err
		}
		d.tree = h
		clean = clean && dclean
		if !h.IsZero() {
			count++
		}
	}
	if count == 0 && n.rel != "" {
		return gitstore.ZeroHash, true, nil
	}
	if cd := s.cache.dirs[n.rel]; clean && cd != nil && cd.entries == uint32(count) {
		n.tree = cd.tree
		return cd.tree, true, nil
	}
	h, err := s.writeTree(n, count)
	n.tree = h
	return h, false, err
}

// writeTree serializes n's entries (subtrees already built) and stores the tree if new.
func (s *snapshotter) writeTree(n *node, count int) (gitstore.Hash, error) {
	entries := make([]gitstore.TreeEntry, 0, count)
	for _, f := range n.files {
		entries = append(entries, gitstore.TreeEntry{Name: f.name, Mode: f.mode, Hash: f.hash})
	}
	if n.cachedFiles > 0 { // its files are its cached run's (see keepFiles)
		cd := s.cache.dirs[n.rel]
		for i := range n.cachedFiles {
			rec := cd.record(i)
			entries = append(entries, gitstore.TreeEntry{Name: rec.name, Mode: rec.mode, Hash: rec.hash})
		}
	}
	for _, d := range n.dirs {
		if !d.tree.IsZero() {
			_, name := splitPath(d.rel)
			entries = append(entries, gitstore.TreeEntry{Name: name, Mode: gitstore.ModeTree, Hash: d.tree})
		}
	}
	gitstore.SortTreeEntries(entries)
	data := gitstore.EncodeTree(entries)
	h := gitstore.HashObject(gitstore.TreeObject, data)
	if !s.cache.knownTree(h) {
		if _, err := s.repo.WriteObject(gitstore.TreeObject, data); err != nil {
			return gitstore.ZeroHash, fmt.Errorf("snapshot: write tree %q: %w", n.rel, err)
		}
	}
	return h, nil
}

// nextCache builds the stat cache describing this snapshot: every directory's tree, the
// files that may be trusted by their stat data next time, and the settled directories'
// listings, also of directories with nothing to record (empty, or only ignored files).
func (s *snapshotter) nextCache(root *node) *statCache {
	c := &statCache{dirs: make(map[string]*cachedDir, len(s.cache.dirs)), root: root.tree}
	var sorted []*fileEntry // scratch: one directory's cacheable files at a time
	var visit func(n *node)
	visit = func(n *node) {
		cd := &cachedDir{tree: n.tree, listing: n.listing, dirStat: n.dirStat}
		if n.cachedFiles > 0 { // the run that stood for its files (see keepFiles)
			cd.raw, cd.entries = s.cache.dirs[n.rel].raw, n.cachedFiles
		} else if raw, ok := s.unchangedRun(n); ok {
			cd.raw, cd.entries = raw, uint32(len(n.files)) // as read: no copy of its files
		} else if !n.tree.IsZero() {
			cd.entries = uint32(len(n.files))
			sorted = sorted[:0]
			for _, f := range n.files {
				if s.cacheable(f) {
					sorted = append(sorted, f)
				}
			}
			cd.raw = s.encodeRun(sorted)
		}
		for _, d := range n.dirs {
			visit(d)
			if !d.tree.IsZero() {
				cd.entries++
			}
		}
		if !n.tree.IsZero() || n.listing != "" {
			c.dirs[n.rel] = cd
		}
	}
	visit(root)
	return c
}

// encodeRun encodes files, sorted here by name, as a directory's run of the stat cache
// (see parseStatCache), in one allocation of its exact size: the records of a changed
// directory, built as they are written.
func (s *snapshotter) encodeRun(files []*fileEntry) string {
	slices.SortFunc(files, func(a, b *fileEntry) int { return strings.Compare(a.name, b.name) })
	record := func(f *fileEntry) cachedFile {
		return cachedFile{name: f.name, stat: s.statOf(f), mode: f.mode, hash: f.hash}
	}
	size := 4
	for _, f := range files {
		rec := record(f)
		size += fileRecordLen(&rec)
	}
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, size), uint32(len(files)))
	for _, f := range files {
		rec := record(f)
		buf = appendFileRecord(buf, &rec)
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// unchangedRun returns the cache's encoded run of n's files when the next cache would hold
// exactly the same records: the same tree, every file answered by the cache (so its record
// is the one read) and still cacheable, and as many records as files. Reusing it keeps an
// unchanged directory's files from being copied into the next cache, which with garbage
// collection off costs a large worktree tens of megabytes.
func (s *snapshotter) unchangedRun(n *node) (string, bool) {
	old := s.cache.dirs[n.rel]
	if old == nil || old.raw == "" || n.tree.IsZero() || old.tree != n.tree {
		return "", false
	}
	for _, f := range n.files {
		if !f.fromCache || !f.cacheHit || !s.cacheable(f) {
			return "", false
		}
	}
	if len(old.fileOffsets()) != len(n.files) {
		return "", false
	}
	return old.raw, true
}

// cacheable reports whether f may be trusted by its stat data next time: not a gitlink or a
// kept index entry, and last modified before this snapshot started reading, by more than the
// file system's timestamp granularity. File times come from the same clock as time.Now,
// coarse by at most a scheduler tick, so 50 ms suffices for nanosecond timestamps; a time
// with no fraction suggests whole-second timestamps (FAT, some network file systems), which
// get three seconds. A file written after its read would otherwise keep its old stat data.
func (s *snapshotter) cacheable(f *fileEntry) bool {
	return f.mode != gitstore.ModeGitlink && f.settled // settled: see fileEntry
}

// settled reports whether st was last modified, and its inode last changed, before this
// snapshot started reading, by more than the file system's timestamp granularity (see
// cacheable). The ctime matters for an entry whose mtime was set back (touch -d, tar, rsync
// -t): changed again within the same clock tick, it could otherwise keep all its stat data.
func (s *snapshotter) settled(st *fileStat) bool {
	if st.mtimeSec == 0 {
		return false
	}
	last := time.Unix(st.mtimeSec, st.mtimeNsec)
	if c := time.Unix(st.ctimeSec, st.ctimeNsec); c.After(last) { // no ctime (0) where none is kept
		last = c
	}
	margin := 50 * time.Millisecond
	if st.mtimeNsec == 0 {
		margin = 3 * time.Second
	}
	return last.Before(s.started.Add(-margin))
}

// freshListings reports whether this walk read a settled directory whose listing the cache
// lacked or had stale: saving the cache then spares the next walk reading it.
func freshListings(n *node) bool {
	if n.fresh && n.listing != "" {
		return true
	}
	for _, d := range n.dirs {
		if freshListings(d) {
			return true
		}
	}
	return false
}
