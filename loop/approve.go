package loop

import (
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
		next := *st
		next.Approved = append([]Approval(nil), st.Approved...)
		for _, w := range st.Weakened {
			next.Approved = append(next.Approved, Approval{Key: w.Key, Iteration: st.Iteration, Why: w.Why})
		}
		approved, next.Weakened = st.Weakened, nil
		next.UpdatedAt = s.Now().UTC()
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: next, snapshot: snap, decision: "approve",
			subject: fmt.Sprintf("loop %s: a person approved %d weakening(s) of the checks at iteration %d", name, len(approved), st.Iteration)}, nil
	})
	return st, approved, err
}
