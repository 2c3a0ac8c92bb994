package loop

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// longSession is how long an agent session may run before the loop suggests a fresh context.
const longSession = 25 * time.Minute

// slowIterationFloor is the shortest iteration the "twice the previous one" rule looks at:
// a stop after seconds instead of a fraction of one is not a context growing long.
const slowIterationFloor = time.Minute

// pace times the iteration that ends at at, recording in next when it ended and how long it
// took, and returns why the session looks long: this iteration took at least twice the
// previous one, or the session has run for more than longSession. "" when neither. An
// iteration runs from the previous judged stop (or the start, or a resume); the session
// from the start or the last `git loop resume --fresh`.
func pace(st, next *State, at time.Time) string {
	began := st.IterationStart
	if began.IsZero() {
		began = st.StartedAt
	}
	took := at.Sub(began)
	next.IterationStart, next.LastIteration = at, took
	var why []string
	if st.LastIteration > 0 && took >= 2*st.LastIteration && took >= slowIterationFloor {
		why = append(why, fmt.Sprintf("iteration %d took %s, at least twice the previous one (%s)", next.Iteration, roundDuration(took), roundDuration(st.LastIteration)))
	}
	session := st.SessionStart
	if session.IsZero() {
		session = st.StartedAt
	}
	if ran := at.Sub(session); ran > longSession {
		why = append(why, fmt.Sprintf("this session has run %s, past %s", roundDuration(ran), roundDuration(longSession)))
	}
	return strings.Join(why, "; ")
}

// withWarning adds a long-session warning to the agent's and the person's messages: a
// fresh context helps, and as every iteration is a checkpoint, the loop can go on from this
// one in a new session.
func (v *Verdict) withWarning(next State, warning string) {
	if warning == "" {
		return
	}
	v.ForAgent += fmt.Sprintf("\nLong session: %s. Long contexts drift: keep your next step small and write down where things stand. "+
		"Every iteration is a checkpoint, so nothing is lost if a person continues this loop from iteration %d in a fresh session.\n", warning, next.Iteration)
	v.ForUser += fmt.Sprintf("; long session: %s — consider a fresh context: every iteration is a checkpoint (iteration %d is refs/loop/%s), so quit the agent, start a new session and run `git loop resume %s --fresh` to go on from it",
		warning, next.Iteration, next.Name, next.Name)
}

// roundDuration shortens a duration for a message: whole seconds, or minutes past an hour.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// ResumeFresh resumes loop name (when paused) and releases it from its agent session, so
// the next session to stop in its worktree takes it over with a fresh context, and the
// session clock starts again. It is how a long session hands the loop on.
func (s *Store) ResumeFresh(name string, newMax int) (*State, error) {
	st, err := s.SetStatusWith(name, Resume, newMax)
	if err != nil && !errors.Is(err, ErrNoChange) {
		return st, err
	}
	if st != nil && st.Ended() {
		return st, nil // a confirmed completion: nothing left to hand on
	}
	return s.update(name, func(_ gitstore.Hash, st *State) (*change, error) {
		if st.Status != StatusActive {
			return nil, fmt.Errorf("%w: loop %q is %s; resume it before handing it to a fresh session", ErrEnded, name, st.Status)
		}
		next := *st
		now := s.Now().UTC()
		next.Session, next.SessionStart, next.IterationStart, next.UpdatedAt = "", now, now, now
		next.Reason = "released for a fresh agent session"
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: %s", name, next.Reason)}, nil
	})
}
