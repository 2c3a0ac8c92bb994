package loop

import (
	"fmt"
	"syscall"
	"testing"
)

// TestTransientPause: a full disk is a cause that passes by itself; the mark it leaves on a
// pause lives as long as that pause, and a person's pause or any resume drops it.
func TestTransientPause(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("snapshot: store %q: %w", "a", syscall.ENOSPC), TransientDiskFull},
		{fmt.Errorf("write: %w", syscall.EDQUOT), TransientDiskFull},
		{fmt.Errorf("write: %w", syscall.EIO), ""},
	} {
		if got := transientCause(tt.err); got != tt.want {
			t.Errorf("transientCause(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	paused := State{Status: StatusPaused, Reason: "paused by an internal error: disk", Transient: TransientDiskFull}
	for _, tt := range []struct {
		name string
		next State
		keep bool
	}{
		{"the same pause", paused, true},
		{"a person's pause", State{Status: StatusPaused, Reason: "paused by user", Transient: TransientDiskFull}, false},
		{"resumed", State{Status: StatusActive, Reason: "resumed by user", Transient: TransientDiskFull}, false},
		{"paused at a limit", State{Status: StatusPaused, Reason: "iteration limit", Transient: TransientDiskFull}, false},
	} {
		next := tt.next
		next.keepTransient(&paused)
		if (next.Transient != "") != tt.keep {
			t.Errorf("%s: transient %q, want kept=%v", tt.name, next.Transient, tt.keep)
		}
	}
	if st := paused.resumedByItself(paused.UpdatedAt); st.Status != StatusActive || st.Transient != "" || st.ResumesItself() {
		t.Errorf("resumedByItself = %+v", st)
	}
}
