package loop

import (
	"errors"
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
)

// Adopt continues fetched loop REMOTE/NAME in this worktree (`git loop resume REMOTE/NAME
// --trust`, or `run` on it): refs/loop/NAME is created on top of the fetched history with one
// state commit that binds the loop to this worktree, active, with no agent session, so the
// next stop claims it. Its stored gate commands will run here, so Trust is required. newMax,
// when set, raises the iteration limit as resume's --max-iterations does. It returns NAME.
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
	tip, err := s.readTip(name)
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
	next := *st
	next.Name, next.Remote, next.Worktree, next.Status, next.Session, next.Checkpoint = local, "", s.Repo.WorkTree, StatusActive, "", ""
	next.UpdatedAt = s.Now().UTC()
	next.IterationStart, next.SessionStart = next.UpdatedAt, next.UpdatedAt
	next.Breakers = Breakers{Trees: st.Breakers.Trees}
	next.Transcript, next.Commands = nil, nil // the transcript was another machine's
	if head, err := s.Repo.Head(); err == nil && !head.IsZero() {
		next.Head = head.String() // commits made before adopting are not this loop's
	}
	if err := raiseLimit(local, &next, newMax); err != nil {
		return "", err
	}
	next.Reason = "adopted from " + name + " (trusted)"
	snap, _ := gitstore.ParseHash(st.Snapshot)
	ch := &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: adopted from %s in %s", local, name, s.Repo.WorkTree)}
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
