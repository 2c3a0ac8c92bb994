package loop

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop/gates"
)

// startJudged starts loop g with one passing gate and the given judges, judged by evaluator.
func startJudged(t *testing.T, evaluator string, conditions ...string) (*Store, string) {
	t.Helper()
	dir := newTestRepo(t)
	s := openStoreAt(t, dir)
	_, err := s.Start(StartOptions{Name: "g", Flags: Settings{
		Prompt: "task", Gates: []gates.Gate{{Name: "ok", Run: "true"}},
		Judges: conditions, Evaluator: Evaluator{Command: evaluator},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// Several judges run in parallel, each on its own condition: the evaluator below judges met
// only the condition that says "alpha", and its reason names the condition it read.
func TestJudgesEachReadTheirOwnCondition(t *testing.T) {
	const eval = `in=$(cat); cond=$(printf '%s\n' "$in" | sed -n '/^=== CONDITION ===$/{n;p;}'); ` +
		`case "$cond" in *alpha*) m=true;; *) m=false;; esac; printf '{"met": %s, "reason": "read %s"}\n' "$m" "$cond"`
	conds := []string{"alpha holds", "beta holds", "gamma holds", "delta holds"}
	s, _ := startJudged(t, eval, conds...)
	r := stop(t, s, StopInput{Message: "Done."})
	if r.Verdict.Decision != DecideContinue {
		t.Fatalf("decision %s (%s), want continue: only one of four conditions is met", r.Verdict.Decision, r.Verdict.Reason)
	}
	judges := r.Iteration.Gates[1:]
	if len(judges) != len(conds) {
		t.Fatalf("%d judge results, want %d", len(judges), len(conds))
	}
	for i, g := range judges {
		if g.Judge == nil || g.Judge.Condition != conds[i] || g.Judge.Reason != "read "+conds[i] {
			t.Fatalf("judge %d (%s) = %+v, want the verdict on %q", i+1, g.Name, g.Judge, conds[i])
		}
		if want := strings.HasPrefix(conds[i], "alpha"); g.Passed() != want {
			t.Errorf("judge %s passed = %v, want %v", g.Name, g.Passed(), want)
		}
	}
}

// Only a verdict is reused for the same tree and message: an evaluator that failed (here it
// exits 1 on its first run) is asked again at the next stop, which then judges met.
func TestFailedEvaluatorRunIsNotReused(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "ran") // outside the worktree, whose tree must not change
	s, _ := startJudged(t, `cat >/dev/null; if [ -e '`+mark+`' ]; then echo '{"met": true}'; else : > '`+mark+`'; echo overloaded >&2; exit 1; fi`, "it holds")
	r := stop(t, s, StopInput{Message: "Done."})
	if j := r.Iteration.Gates[1].Judge; r.Verdict.Decision != DecideContinue || j.Verdict != VerdictFailed {
		t.Fatalf("first stop: %s, judge %+v; want continue on a failed run", r.Verdict.Decision, j)
	}
	r = stop(t, s, StopInput{Message: "Done."})
	if j := r.Iteration.Gates[1].Judge; r.Verdict.Decision != DecideComplete || !j.Ran || j.CachedFrom != 0 {
		t.Fatalf("second stop, same tree and message: %s (%s), judge %+v; want the evaluator asked again, and met", r.Verdict.Decision, r.Verdict.Reason, j)
	}
	if r.State.EvaluatorRuns != 2 {
		t.Errorf("%d evaluator runs counted, want 2: a failed run counts against the budget", r.State.EvaluatorRuns)
	}
}

// git diff runs within the stop's deadline: once it has passed, no evaluator is asked, and
// the judge says why.
func TestJudgeInputWithinTheDeadline(t *testing.T) {
	s, dir := startJudged(t, `echo '{"met": true}'`, "it holds")
	_, st, err := s.ReadState("g")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config("g", st)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := takeSnapshot(s.Repo)
	if err != nil {
		t.Fatal(err)
	}
	opts := gates.RunOptions{Dir: dir, Deadline: time.Now().Add(-time.Second), DeadlineWhy: "the agent gives its stop hook 1s"}
	res := s.runJudges(context.Background(), judgeRun{name: "g", cfg: cfg, st: st, tree: snap.Tree, opts: opts, budget: true})
	if len(res) != 1 || res[0].Passed() || res[0].Judge.Ran || !strings.Contains(res[0].Judge.Reason, "the stop's deadline passed while git diff read the patch (the agent gives its stop hook 1s)") {
		t.Fatalf("judge past the deadline = %+v (%+v), want not run, saying the deadline passed", res, res[0].Judge)
	}
}
