package loop

import (
	"errors"
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
)

// Adopt continues fetched loop REMOTE/NAME in this worktree (`git loop resume REMOTE/NAME
// --trust`, or `run` on it): refs/loop/NAME is created on top of the fetched history with one
// state commit that binds the loop to this worktree, active, with no agent session, so the
// next stop claims it. Its stored gate commands will run here, so Trust is required.
//
// That commit records this worktree's snapshot as an iteration of kind "adopt" (not judged):
// the baseline the agent's work here starts from. Without it, the next iteration's diff
// would be the difference between the two machines' worktrees (files only the other one
// had shown as deleted) as if the agent had done it. The record takes an iteration number,
// so the limit grows by one and the agent keeps the iterations it had; newMax, when set,
// is the new limit instead, as resume's --max-iterations. It returns NAME.
func (s *Store) Adopt(name string, newMax int) (string, error) {
	if err := CheckReadName(name); err != nil {
		return "", err
	}
	local := LocalName(name)
	if !IsFetched(name) {
		return "", fmt.Errorf("%w: %q is not a fetched loop (REMOTE/NAME)", ErrBadName, name)
	}
	if !s.Trust {
		return "", untrusted(name, "")
	}
	release, err := lockStart(s.Repo)
	if err != nil {
		return "", err
	}
	defer release()
	if err := s.checkFree(); err != nil {
		return "", err
	}
	if _, err := s.Repo.ReadRef(RefName(local)); err == nil {
		return "", fmt.Errorf("%w: a loop %q exists here already; resume that one with `git loop resume %s`, or compare them with `git loop log %s` and `git loop log %s`", ErrExists, local, local, local, name)
	} else if !errors.Is(err, gitstore.ErrRefNotFound) {
		return "", err
	}
	tip, err := s.ReadTip(name)
	if err != nil {
		return "", err
	}
	st, err := s.stateAt(name, tip)
	if err != nil {
		return "", err
	}
	if st.Ended() {
		return "", fmt.Errorf("%w: %s is %s; read it with `git loop log %s`, or start a new loop", ErrEnded, name, st.Status, name)
	}
	snap, err := takeSnapshot(s.Repo)
	if err != nil {
		return "", fmt.Errorf("adopt loop %s: snapshot this worktree: %w", name, err)
	}
	next := *st
	next.Name, next.Remote, next.Worktree, next.Status, next.Session, next.Checkpoint = local, "", s.Repo.WorkTree, StatusActive, "", ""
	next.UpdatedAt = s.Now().UTC()
	next.IterationStart, next.SessionStart = next.UpdatedAt, next.UpdatedAt
	next.Breakers = Breakers{Trees: st.Breakers.Trees}
	next.Transcript, next.Commands = nil, nil // the transcript was another machine's
	if head, err := s.Repo.Head(); err == nil && !head.IsZero() {
		next.Head = head.String() // commits made before adopting are not this loop's
	}
	next.Iteration++ // the adopted baseline
	if newMax == 0 && next.MaxIterations > 0 {
		next.MaxIterations++ // the baseline is not the agent's: it keeps the iterations it had
	}
	if err := raiseLimit(local, &next, newMax); err != nil {
		return "", err
	}
	next.Reason = "adopted from " + name + " (trusted)"
	prev, _ := gitstore.ParseHash(st.Snapshot)
	prevTree, _ := gitstore.ParseHash(st.Tree)
	snapCommit, changed, err := s.snapshotCommit(prev, prevTree, snap.Tree, local, next.Iteration)
	if err != nil {
		return "", fmt.Errorf("adopt loop %s: %w", name, err)
	}
	// The next stop's diff, and its check of irreversible paths, start from this worktree.
	next.Snapshot, next.Tree, next.JudgedTree = snapCommit.String(), snap.Tree.String(), snap.Tree.String()
	rec := &Iteration{Number: next.Iteration, Kind: "adopt", At: next.UpdatedAt, Snapshot: next.Snapshot, Tree: next.Tree,
		Changed: changed, Files: snap.Files, Hashed: snap.Hashed, Reason: fmt.Sprintf("this worktree (%s) when %s was adopted", s.Repo.WorkTree, name)}
	ch := &change{state: next, iteration: rec, snapshot: snapCommit, subject: fmt.Sprintf("loop %s: adopted from %s in %s, iteration %d", local, name, s.Repo.WorkTree, next.Iteration)}
	commit, err := s.commitChange(tip, ch)
	if err != nil {
		return "", err
	}
	if err := s.Repo.UpdateRef(RefName(local), commit, gitstore.ZeroHash, ch.subject); err != nil {
		if errors.Is(err, gitstore.ErrRefChanged) {
			return "", fmt.Errorf("%w: %q was created meanwhile by another process", ErrExists, local)
		}
		return "", fmt.Errorf("adopt loop %s: %w", name, err)
	}
	writeHotState(s.Repo, local, commit, &next, nil)
	return local, setActive(s.Repo, local)
}

// ResumeFetched is `git loop resume REMOTE/NAME --trust`: Adopt, returning the new state.
func (s *Store) ResumeFetched(name string, newMax int) (*State, error) {
	local, err := s.Adopt(name, newMax)
	if err != nil {
		return nil, err
	}
	_, st, err := s.ReadState(local)
	return st, err
}
