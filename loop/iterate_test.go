package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/gates"
)

func startGated(t *testing.T, session string) (*Store, string) {
	t.Helper()
	dir := newTestRepo(t)
	s := openStoreAt(t, dir)
	_, err := s.Start(StartOptions{Name: "g", Session: session, Flags: Settings{
		Prompt: "create fixed.txt", Promises: []string{"DONE"},
		Gates: []gates.Gate{{Name: "fixed", Run: "test -f fixed.txt || { echo fixed.txt is missing; exit 1; }"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func openStoreAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.ReportFiles = statusReport
	return s
}

// statusReport stands for package report in the engine's tests (which it imports): a
// report.md naming the loop's final status.
func statusReport(_ *Config, st *State, iters []Iteration) map[string][]byte {
	return map[string][]byte{"report.md": fmt.Appendf(nil, "status: %s after %d iterations\n", st.Status, len(iters))}
}

func stop(t *testing.T, s *Store, in StopInput) *StopResult {
	t.Helper()
	in.MessageKnown = true
	r, err := s.Stop(context.Background(), "g", in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStopFalseClaimThenFix: a claim of completion while the gate fails is sent back with the
// gate's output; after the fix and the promise the loop completes, all recorded in git.
func TestStopFalseClaimThenFix(t *testing.T) {
	s, dir := startGated(t, "")
	r := stop(t, s, StopInput{Session: "sess-1", Message: "Done!\n<promise>DONE</promise>"})
	if r.Verdict.Decision != DecideContinue || !strings.Contains(r.Verdict.ForAgent, "fixed.txt is missing") {
		t.Fatalf("false claim: got %s, continuation:\n%s", r.Verdict.Decision, r.Verdict.ForAgent)
	}
	if r.State.Session != "sess-1" {
		t.Errorf("the first stop did not claim the loop: session %q", r.State.Session)
	}
	os.WriteFile(filepath.Join(dir, "fixed.txt"), []byte("ok\n"), 0o666)
	r = stop(t, s, StopInput{Session: "sess-1", Message: "Created it.\n<promise>DONE</promise>"})
	if r.Verdict.Decision != DecideComplete || r.State.Status != StatusCompleted {
		t.Fatalf("after the fix: %s (%s)", r.Verdict.Decision, r.Verdict.Reason)
	}
	if name, _ := activeName(s.Repo); name != "" {
		t.Errorf("completed loop still active here: %q", name)
	}
	out, err := exec.Command("git", "-C", dir, "show", "refs/loop/g:"+IterationPath(1)).Output()
	if err != nil || !strings.Contains(string(out), `"status": "fail"`) || !strings.Contains(string(out), `"decision": "continue"`) {
		t.Errorf("iteration 1 record: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestStopOtherSession: a loop bound to one session ignores another's stops and records
// nothing.
func TestStopOtherSession(t *testing.T) {
	s, _ := startGated(t, "mine")
	tip, _ := s.Repo.ReadRef(RefName("g"))
	r := stop(t, s, StopInput{Session: "theirs", Message: "<promise>DONE</promise>"})
	if r.Verdict.Decision != decideAllow || r.Iteration != nil {
		t.Fatalf("other session: %s, recorded %v", r.Verdict.Decision, r.Iteration != nil)
	}
	if after, _ := s.Repo.ReadRef(RefName("g")); after != tip {
		t.Error("another session's stop changed the loop")
	}
}

// TestStopPausedLoop: a paused loop lets the agent stop without recording.
func TestStopPausedLoop(t *testing.T) {
	s, _ := startGated(t, "")
	if _, err := s.SetStatus("g", Pause); err != nil {
		t.Fatal(err)
	}
	if r := stop(t, s, StopInput{}); r.Verdict.Decision != decideAllow || r.Iteration != nil {
		t.Fatalf("paused: %s", r.Verdict.Decision)
	}
}

// TestPauseForError: an internal failure pauses the loop with the reason, deleting nothing.
func TestPauseForError(t *testing.T) {
	s, _ := startGated(t, "")
	if st, err := s.PauseForError("g", errors.New("disk full\nmore")); err != nil || st.Status != StatusPaused {
		t.Fatal(st, err)
	}
	if _, err := s.PauseForError("nothere", errors.New("x")); !errors.Is(err, ErrNoLoop) {
		t.Fatalf("pausing a loop that does not exist: %v", err)
	}
	_, st, err := s.ReadState("g")
	if err != nil || st.Status != StatusPaused || st.Reason != "paused by an internal error: disk full" {
		t.Fatalf("state after PauseForError: %+v, %v", st, err)
	}
}
