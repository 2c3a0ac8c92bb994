package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/git-loop/git-loop/loop/gates"
)

// TestStopJudgedOnce: a stop that names itself (StopID) is judged once; the same stop again,
// as a second copy of the hook sends it, gets the first answer and records nothing, whatever
// that answer was. Another stop is judged as usual.
func TestStopJudgedOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fixed   bool // the gate passes
		message string
		max     int
		want    string
	}{
		{"sent back", false, "<promise>DONE</promise>", 0, DecideContinue},
		{"completed", true, "<promise>DONE</promise>", 0, DecideComplete},
		{"paused at the limit", false, "", 1, DecidePause},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newTestRepo(t)
			s := openStoreAt(t, dir)
			flags := Settings{Prompt: "create fixed.txt", Promises: []string{"DONE"},
				Gates: []gates.Gate{{Name: "fixed", Run: "test -f fixed.txt || { echo fixed.txt is missing; exit 1; }"}}}
			if tc.max > 0 {
				flags.MaxIterations = &tc.max
			}
			if _, err := s.Start(StartOptions{Name: "g", Flags: flags}); err != nil {
				t.Fatal(err)
			}
			if tc.fixed {
				os.WriteFile(filepath.Join(dir, "fixed.txt"), []byte("ok\n"), 0o666)
			}
			in := StopInput{Session: "s", Kind: "stop", Message: tc.message, StopID: "s@1"}
			first := stop(t, s, in)
			tip, _ := s.Repo.ReadRef(RefName("g"))
			again := stop(t, s, in)
			if first.Verdict.Decision != tc.want || first.Repeated {
				t.Fatalf("first: %s (repeated %v), want %s", first.Verdict.Decision, first.Repeated, tc.want)
			}
			if !again.Repeated || again.Iteration != nil || again.Verdict.Decision != first.Verdict.Decision ||
				again.Verdict.ForAgent != first.Verdict.ForAgent || again.Verdict.ForUser != first.Verdict.ForUser {
				t.Errorf("the same stop again got %s %q (repeated %v), want the first answer %s %q, not recorded",
					again.Verdict.Decision, again.Verdict.ForUser, again.Repeated, first.Verdict.Decision, first.Verdict.ForUser)
			}
			if after, _ := s.Repo.ReadRef(RefName("g")); after != tip {
				t.Error("the same stop again changed the loop")
			}
			if tc.want != DecideContinue {
				return
			}
			next := stop(t, s, StopInput{Session: "s", Kind: "stop", StopID: "s@2"})
			if next.Repeated || next.Iteration == nil || next.Iteration.Number != 2 {
				t.Errorf("the next stop was not judged as iteration 2: %s %q (repeated %v)", next.Verdict.Decision, next.Verdict.Reason, next.Repeated)
			}
		})
	}
}

// TestStopJudgedOnceConcurrently: two copies of the hook judge the same stop at the same
// time, each through its own store as two processes would; a gate that waits for the other
// copy's gate holds both in their gates together, so both compare records inside the ref
// update. One records iteration 1, the other gets its answer: the same block, the same
// reason.
func TestStopJudgedOnceConcurrently(t *testing.T) {
	dir := newTestRepo(t)
	barrier := t.TempDir()
	gate := fmt.Sprintf(`touch %[1]q/$$; i=0; while [ "$(ls %[1]q | wc -l)" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; echo fixed.txt is missing; exit 1`, barrier)
	_, err := openStoreAt(t, dir).Start(StartOptions{Name: "g", Flags: Settings{Prompt: "create fixed.txt", Promises: []string{"DONE"},
		Gates: []gates.Gate{{Name: "fixed", Run: gate}}}})
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg   sync.WaitGroup
		res  [2]*StopResult
		errs [2]error
	)
	for i := range res {
		s := openStoreAt(t, dir)
		wg.Go(func() {
			res[i], errs[i] = s.Stop(context.Background(), "g", StopInput{Session: "s", Kind: "stop", MessageKnown: true,
				Message: "<promise>DONE</promise>", StopID: "s@1"})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if ran, _ := os.ReadDir(barrier); len(ran) != 2 {
		t.Fatalf("the gate ran %d times, want once per copy, together", len(ran))
	}
	a, b := res[0], res[1]
	if a.Repeated == b.Repeated {
		t.Fatalf("repeated: %v and %v, want exactly one copy to record the stop", a.Repeated, b.Repeated)
	}
	if a.Verdict.Decision != DecideContinue || b.Verdict.Decision != DecideContinue || a.Verdict.ForAgent != b.Verdict.ForAgent {
		t.Errorf("the copies answered differently:\n%s: %s\n%s: %s", a.Verdict.Decision, a.Verdict.ForAgent, b.Verdict.Decision, b.Verdict.ForAgent)
	}
	_, st, err := openStoreAt(t, dir).ReadState("g")
	if err != nil || st.Iteration != 1 {
		t.Fatalf("state after both copies: iteration %d, %v; want 1", st.Iteration, err)
	}
}
