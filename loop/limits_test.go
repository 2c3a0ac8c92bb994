package loop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWallClockCountsRunningTime: the time a loop spends paused does not count against its
// wall-clock limit, so a loop paused over lunch resumes plainly; a loop that ran its limit
// is refused a plain resume and told the one that lengthens it, which then works.
func TestWallClockCountsRunningTime(t *testing.T) {
	dir := newTestRepo(t)
	s := openStoreAt(t, dir)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	flags := Settings{Prompt: "task", Promises: []string{"DONE"}, Policy: Policy{MaxDuration: "10m"}}
	if _, err := s.Start(StartOptions{Name: "g", Flags: flags}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if _, err := s.SetStatus("g", Pause); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Hour) // lunch
	if _, err := s.SetStatus("g", Resume); err != nil {
		t.Fatalf("resume after a long pause: %v", err)
	}
	now = now.Add(5 * time.Minute)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o666)
	if r := stop(t, s, StopInput{Message: "working"}); r.Verdict.Decision != DecideContinue {
		t.Fatalf("6 minutes run of 10: %s (%s)", r.Verdict.Decision, r.Verdict.Reason)
	}
	now = now.Add(5 * time.Minute)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b"), 0o666)
	r := stop(t, s, StopInput{Message: "working"})
	if r.Verdict.Decision != DecidePause || !strings.Contains(r.Verdict.Reason, "wall-clock limit reached (10m)") {
		t.Fatalf("11 minutes run of 10: %s (%s)", r.Verdict.Decision, r.Verdict.Reason)
	}
	now = now.Add(time.Hour) // the person comes back later: the suggestion still holds
	_, err := s.SetStatus("g", Resume)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "has run 11m of its 10m") || !strings.Contains(err.Error(), "--max-duration 22m") {
		t.Fatalf("plain resume at the limit: %v", err)
	}
	if _, err := s.RaiseLimits("g", Raise{MaxDuration: "22m"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetStatus("g", Resume); err != nil {
		t.Fatalf("the suggested resume: %v", err)
	}
}

// A loop whose evaluator cost budget is spent is not resumed: no flag raises that budget,
// and its next judged stop would pause it again.
func TestResumeRefusedPastEvaluatorCostBudget(t *testing.T) {
	cfg := &Config{Judges: []Judge{{Name: "judge", Condition: "c"}}, Evaluator: &Evaluator{Command: "eval", CostBudget: 0.5}}
	st := &State{Name: "g", Status: StatusPaused, EvaluatorRuns: 3, EvaluatorCost: 0.25}
	if err := checkBudgets(cfg, st); err != nil {
		t.Fatalf("checkBudgets() under the cost budget = %v", err)
	}
	st.EvaluatorCost = 0.5
	if err := checkBudgets(cfg, st); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "higher loop.evaluatorCostBudget") {
		t.Fatalf("checkBudgets() at the cost budget = %v, want ErrLimit naming loop.evaluatorCostBudget", err)
	}
}
