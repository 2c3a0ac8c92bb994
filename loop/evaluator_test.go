package loop

import (
	"strings"
	"testing"
)

// startJudged starts loop g with one passing gate and the given judges, judged by evaluator.
func startJudged(t *testing.T, evaluator string, conditions ...string) (*Store, string) {
	t.Helper()
	dir := newTestRepo(t)
	s := openStoreAt(t, dir)
	_, err := s.Start(StartOptions{Name: "g", Flags: Settings{
		Prompt: "task", Gates: []Gate{{Name: "ok", Run: "true"}},
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
