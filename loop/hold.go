package loop

import (
	"errors"
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/snapshots"
)

// ErrSnapshotLost means a snapshot's objects were deleted (a concurrent git gc --prune=now
// or git prune --expire=now) before a state commit could name them, and could not be
// written again: nothing was recorded, so no state names a missing object.
var ErrSnapshotLost = errors.New("the snapshot's objects were pruned before it was recorded")

// snapshotRetakes bounds how often a stop takes its snapshot again when a prune took
// objects of it before it was held.
const snapshotRetakes = 2

// A stop's snapshot is written before its gates run and is named by the loop's ref only
// with the state commit, after them: for the whole run of the gates, a git gc --prune=now
// would delete it, and the state commit would name missing objects for good. So its
// snapshot commit is written at once and held (gitstore.Hold) until the state commit is on
// the ref. What was written before the hold — the blobs and trees, moments earlier, and
// what the stat cache vouched for from an earlier snapshot never recorded — may have been
// pruned already: the held tree is checked whole (against the last recorded tree, which the
// ref keeps) and, if it is not, taken again trusting no cache, which writes what is missing.

// heldSnapshot is a stop's snapshot commit, written before its gates, and its hold.
type heldSnapshot struct {
	commit, parent, tree gitstore.Hash
	iteration            int
	hold                 *gitstore.Hold
}

// release drops the hold, once the state commit naming the snapshot is on the ref (or the
// stop recorded nothing). A nil heldSnapshot holds nothing.
func (h *heldSnapshot) release() {
	if h != nil {
		h.hold.Release()
	}
}

// holdSnapshot writes and holds the snapshot commit of snap, the snapshot of wt for the
// stop after state st of loop name, and makes sure its tree is whole, taking it again if
// it is not. It returns the snapshot (snap, or the one taken again) and the held commit,
// nil when the tree is the last recorded one (the ref keeps it already).
func (s *Store) holdSnapshot(name string, st *State, wt *gitstore.Repo, snap *snapshots.Result) (*snapshots.Result, *heldSnapshot, error) {
	prev, _ := gitstore.ParseHash(st.Snapshot)
	prevTree, _ := gitstore.ParseHash(st.Tree)
	var held *heldSnapshot
	for attempt := 0; ; attempt++ {
		if !prev.IsZero() && prevTree == snap.Tree {
			held.release()
			return snap, nil, nil
		}
		if held == nil || held.tree != snap.Tree {
			held.release()
			var err error
			if held, err = s.writeHeld(name, prev, snap.Tree, st.Iteration+1); err != nil {
				return nil, nil, err
			}
		}
		err := s.Repo.CheckWhole(snap.Tree, prevTree)
		if err == nil {
			return snap, held, nil
		}
		if !errors.Is(err, gitstore.ErrObjectNotFound) || attempt == snapshotRetakes {
			held.release()
			return nil, nil, fmt.Errorf("snapshot of loop %q: %w (%v)", name, ErrSnapshotLost, err)
		}
		if snap, err = snapshots.Retake(wt); err != nil {
			held.release()
			return nil, nil, err
		}
	}
}

// writeHeld writes the snapshot commit of tree (parent prev, for iteration iter) and holds
// it. A hold that cannot be made is said once: the stop goes on unprotected from a
// concurrent prune, and its state commit still names only objects checked to exist.
func (s *Store) writeHeld(name string, prev, tree gitstore.Hash, iter int) (*heldSnapshot, error) {
	commit, _, err := s.snapshotCommit(prev, gitstore.ZeroHash, tree, name, iter)
	if err != nil {
		return nil, err
	}
	h := &heldSnapshot{commit: commit, parent: prev, tree: tree, iteration: iter}
	h.hold, err = s.Repo.HoldObject(name, commit)
	warnOnce("the hold on the snapshot", err, "a concurrent git gc --prune=now may cost this stop its record")
	gitstore.StallAt("snapshot-held")
	return h, nil
}

// stopSnapshot is the snapshot commit a stop's state commit names: the held one when it
// fits (same parent, tree and iteration, and still stored), else as snapshotCommit makes it.
func (s *Store) stopSnapshot(held *heldSnapshot, prev, prevTree, tree gitstore.Hash, name string, iter int) (gitstore.Hash, bool, error) {
	if held != nil && held.parent == prev && held.tree == tree && held.iteration == iter && s.Repo.HasObject(held.commit) {
		return held.commit, true, nil
	}
	return s.snapshotCommit(prev, prevTree, tree, name, iter)
}

// snapshotStored reports whether snapshot commit h and its tree are stored: checked right
// before a state commit naming a new snapshot goes on the ref.
func (s *Store) snapshotStored(h gitstore.Hash) bool {
	c, err := s.Repo.ReadCommit(h)
	return err == nil && s.Repo.HasObject(c.Tree)
}
