package loop

import (
	"errors"
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/checks"
)

// Approve records a person's word that the weakenings of the checks the loop's last judged
// iteration found are wanted (the task is about those tests): each is allowed from then on,
// as "approved by a person at iteration N", in iteration records, status and the report. The
// approval is a state commit on the loop's ref; the loop's status does not change, so a loop
// paused for another reason still needs `git loop resume`. It returns the state and what was
// approved. A loop with nothing to approve is ErrNoChange.
func (s *Store) Approve(name string) (*State, []checks.Weakening, error) {
	var approved []checks.Weakening
	st, err := s.update(name, func(_ gitstore.Hash, st *State) (*change, error) {
		if IsFetched(name) {
			return nil, readOnly(name)
		}
		if st.Ended() {
			return nil, fmt.Errorf("%w: loop %q is %s; nothing to approve", ErrEnded, name, st.Status)
		}
		if len(st.Weakened) == 0 {
			return nil, fmt.Errorf("%w: loop %q's last judged iteration weakened no check; `git loop status %s` lists weakenings when there are", ErrNoChange, name, name)
		}
		found := st.Weakened
		if len(found) >= maxStateWeakenings { // the state keeps ten: the iteration that found them keeps all
			all, err := s.judgedWeakenings(name, st)
			if err != nil {
				return nil, err
			}
			found = all
		}
		next := *st
		next.Approved = append([]Approval(nil), st.Approved...)
		for i, w := range found {
			a := Approval{Key: w.Key, Iteration: st.Iteration}
			if i < maxStateWeakenings { // the reasons of the first ten say what was approved; keys suffice for the rest
				a.Why = w.Why
			}
			next.Approved = append(next.Approved, a)
		}
		approved, next.Weakened = found, nil
		next.UpdatedAt = s.Now().UTC()
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: next, snapshot: snap, decision: "approve",
			subject: fmt.Sprintf("loop %s: a person approved %d weakening(s) of the checks at iteration %d", name, len(approved), st.Iteration)}, nil
	})
	return st, approved, err
}

// maxApproveLookBack bounds the records Approve reads back from the state's iteration (past
// checkpoints) for the one whose weakenings the state lists.
const maxApproveLookBack = 100

// judgedWeakenings are all the weakenings nothing allowed of the judged iteration whose first
// ten the state lists, read from its record; the state's own when no record has them.
func (s *Store) judgedWeakenings(name string, st *State) ([]checks.Weakening, error) {
	h, err := s.OpenHistory(name)
	if err != nil {
		return nil, err
	}
	for n := st.Iteration; n >= 0 && n > st.Iteration-maxApproveLookBack; n-- {
		rec, err := h.Get(n)
		if errors.Is(err, ErrNoIteration) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if ws := blocking(rec.Weakened); len(ws) >= len(st.Weakened) && ws[0].Key == st.Weakened[0].Key {
			return ws, nil
		}
	}
	return st.Weakened, nil
}
