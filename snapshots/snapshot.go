package snapshots

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// ErrChanging means files kept changing while they were read, so no consistent snapshot could
// be taken.
var ErrChanging = errors.New("files changed while the snapshot was taken")

// Result describes one snapshot.
type Result struct {
	// Tree is the snapshot's tree object.
	Tree gitstore.Hash
	// Files counts the entries (files, symlinks, gitlinks) in the tree.
	Files int
	// Hashed counts files whose content had to be read (not answered by the index or cache).
	Hashed int
	// Listed counts directories whose entries had to be read (not answered by the cache).
	Listed int
	// CacheErr says why the stat cache could not be saved. The cache is rebuildable: the
	// snapshot is whole without it, and the next one only reads more.
	CacheErr error
}

// CachePath is where the stat cache of r's worktree lives.
func CachePath(r *gitstore.Repo) string {
	return filepath.Join(r.GitDir, "loop", "snapshot-cache")
}

// Take snapshots r's worktree, writing any missing blob and tree objects.
func Take(r *gitstore.Repo) (*Result, error) { return takeWith(r, true) }

// Retake snapshots r's worktree as Take does, but trusts nothing of the stat cache: every
// file not answered by the index is read and its blob written if missing, and every tree
// written if missing. It is for when a snapshot's tree turned out to name an object that is
// gone (a prune took what the cache vouched for), and it leaves the cache rebuilt.
func Retake(r *gitstore.Repo) (*Result, error) { return takeWith(r, false) }

func takeWith(r *gitstore.Repo, cached bool) (*Result, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var res *Result
		res, err = take(r, cached)
		if !errors.Is(err, errRetry) {
			return res, err
		}
	}
	return nil, fmt.Errorf("snapshot %s: %w; stop the processes writing to it and retry", r.WorkTree, ErrChanging)
}

var errRetry = errors.New("retry snapshot")

func take(r *gitstore.Repo, cached bool) (*Result, error) {
	s, err := newSnapshotter(r, cached)
	if err != nil {
		return nil, err
	}
	root, err := s.walk()
	if err != nil {
		return nil, err
	}
	defer boundGarbage()() // what follows makes garbage in proportion to the changes
	s.addKept(root)
	if s.filtered.Load() { // content conversion turned up during the walk: see wholesale
		s.materializeAll(root)
		s.requeueCacheHits(root)
	}
	if err := s.hashPending(); err != nil {
		return nil, err
	}
	tree, clean, err := s.buildTree(root)
	if err != nil {
		return nil, err
	}
	res := &Result{Tree: tree, Files: int(s.count.Load()), Hashed: len(s.pending), Listed: int(s.listed.Load())}
	if !clean || tree != s.cache.root || len(s.pending) > 0 || freshListings(root) {
		res.CacheErr = s.nextCache(root).save(CachePath(r))
	}
	return res, nil
}

// usableHash returns the index's object name for a file whose stat data still match the
// entry and that is not racily clean (modified at or after the index was written).
func (t *trackedIndex) usableHash(e *gitstore.IndexEntry, st *fileStat) (gitstore.Hash, bool) {
	if e.Stage != 0 || e.IntentToAdd || e.Mode == gitstore.ModeGitlink {
		return gitstore.ZeroHash, false
	}
	if (e.Mode == gitstore.ModeSymlink) != st.isSymlink() {
		return gitstore.ZeroHash, false
	}
	if e.Size != uint32(st.size) || e.MtimeSec != uint32(st.mtimeSec) || e.MtimeNsec != uint32(st.mtimeNsec) ||
		e.CtimeSec != uint32(st.ctimeSec) || e.CtimeNsec != uint32(st.ctimeNsec) || e.Ino != uint32(st.ino) {
		return gitstore.ZeroHash, false
	}
	if !time.Unix(st.mtimeSec, st.mtimeNsec).Before(t.modTime) {
		return gitstore.ZeroHash, false
	}
	return e.Hash, true
}

// requeueCacheHits sends files answered by the stat cache back to hashing: with content
// conversion on, a file's blob depends on attributes that may have changed since it was
// cached, which its stat data cannot show. The index's answers stay, as git keeps them.
func (s *snapshotter) requeueCacheHits(n *node) {
	for _, f := range n.files {
		if !f.cacheHit {
			continue
		}
		if st := s.statOf(f); st.isRegular() {
			f.stat, f.cacheHit, f.fromCache = &st, false, false
			s.pending = append(s.pending, f)
		}
	}
	for _, d := range n.dirs {
		s.requeueCacheHits(d)
	}
}
