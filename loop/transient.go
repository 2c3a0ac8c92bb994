package loop

import (
	"errors"
	"syscall"
	"time"
)

// A pause is transient when its cause passes by itself: git-loop could not write because
// the disk was full (ENOSPC, or the user's quota, EDQUOT). Such a pause is recorded with
// State.Transient naming the cause, and the next stop resumes the loop by itself and judges
// the stop; if the disk is still full, that stop fails as the last one did and the loop stays
// paused. Any other pause waits for a person (`git loop resume`).

// TransientDiskFull is State.Transient for a pause made because the disk was full.
const TransientDiskFull = "disk full"

// transientCause names the cause of err when it passes by itself (see above), else "".
func transientCause(err error) string {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return TransientDiskFull
	}
	return ""
}

// ResumesItself reports whether the loop is paused for a cause that passes by itself, so
// that its next stop resumes it (see above).
func (s *State) ResumesItself() bool {
	return s.Status == StatusPaused && s.Transient != ""
}

// resumedByItself is the active state a stop judges a loop paused for a transient cause
// from: the pause ends, the breakers' counts are kept (the cause was not the agent's work).
func (s *State) resumedByItself(now time.Time) *State {
	next := *s
	next.Status, next.UpdatedAt, next.Reason = StatusActive, now, "resumed by itself: its cause ("+s.Transient+") has passed"
	next.Transient = ""
	return &next
}

// keepTransient drops the transient mark of a state that follows prev unless the change
// left the loop in the very pause that set it: a resume, or a person's pause of a loop
// paused for a transient cause, makes it a pause like any other.
func (s *State) keepTransient(prev *State) {
	if s.Status != StatusPaused || (prev.Status == StatusPaused && s.Reason != prev.Reason) {
		s.Transient = ""
	}
}
