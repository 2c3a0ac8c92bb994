package loop

import (
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/gates"
)

// A condition completes a loop only on a pass this iteration: a verdict missing, not run,
// unmet, failed, impossible or out of budget never completes it.
func TestDecideJudges(t *testing.T) {
	judged := func(status, verdict, reason string) GateResult {
		return GateResult{Result: gates.Result{Name: "judge", Layer: 3, Status: status, Tail: "condition: c\nevaluator (" + verdict + "): " + reason + "\n"},
			Judge: &JudgeInfo{Condition: "the README explains it", Evaluator: "eval", Verdict: verdict, Reason: reason}}
	}
	withJudge := func(c *Config) {
		c.Promises, c.Exit = nil, exitGates
		c.Judges = []Judge{{Name: "judge", Condition: "the README explains it"}}
		c.Evaluator = &Evaluator{Command: "eval"}
	}
	tests := []struct {
		name     string
		results  []GateResult
		decision string
		reason   string // substring
		forAgent string // substring of the continuation
	}{
		{"met and gates pass", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusPass, VerdictMet, "ok")), DecideComplete, "the evaluator judged the condition met", ""},
		{"no verdict recorded", gateResults(gates.StatusPass, gates.StatusPass), DecideContinue, "unmet: gate judge", "the evaluator judges met"},
		{"not run", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusSkip, VerdictNotRun, "not run")), DecideContinue, "unmet: gate judge", ""},
		{"unmet", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusFail, VerdictUnmet, "README silent")), DecideContinue, "unmet: gate judge", "Its reason:\n\n```\nREADME silent\n```"},
		{"invalid output", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusFail, VerdictInvalid, "no valid verdict")), DecideContinue, "unmet: gate judge", "no valid verdict"},
		{"timed out", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusTimeout, VerdictFailed, "timed out")), DecideContinue, "unmet: gate judge", "timed out"},
		{"impossible pauses", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusBlocked, VerdictImpossible, "contradicts the task")), DecidePause, "judged judge's condition impossible: contradicts the task", ""},
		{"budget pauses", append(gateResults(gates.StatusPass, gates.StatusPass), judged(gates.StatusBlocked, VerdictBudget, "the evaluator budget is spent")), DecidePause, "judge: the evaluator budget is spent", ""},
		{"gate fails first", append(gateResults(gates.StatusFail, gates.StatusPass), judged(gates.StatusSkip, VerdictNotRun, "not run")), DecideContinue, "unmet: gate build, gate judge", "Rework layer 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := decide(testConfig(withJudge), testState(nil), obs("t1", "Done.", tt.results))
			if v.Decision != tt.decision || !strings.Contains(v.Reason, tt.reason) {
				t.Fatalf("decision %s (%s), want %s (%s)", v.Decision, v.Reason, tt.decision, tt.reason)
			}
			if !strings.Contains(v.ForAgent, tt.forAgent) {
				t.Fatalf("continuation lacks %q:\n%s", tt.forAgent, v.ForAgent)
			}
			if v.State.Status == StatusCompleted && tt.decision != DecideComplete {
				t.Fatal("completed on a condition not judged met")
			}
		})
	}
}

// A judge's condition is an exit of its own: a loop with judges and no gate or promise is
// not a loop that only its limit ends, and a judge without an evaluator is refused.
func TestResolveJudges(t *testing.T) {
	one := 5
	s := Settings{Prompt: "p", Judges: []string{"the README explains it"}, Evaluator: Evaluator{Command: "eval"}, MaxIterations: &one}
	cfg, err := s.resolve()
	if err != nil || cfg.Exit != exitGates || len(cfg.Judges) != 1 || cfg.Judges[0].Name != "judge" || cfg.Evaluator.Command != "eval" {
		t.Fatalf("resolve() = %+v, %v; want exit gates with one judge", cfg, err)
	}
	s.Judges = append(s.Judges, "no test file changed")
	if cfg, _ = s.resolve(); cfg.Judges[1].Name != "judge-2" {
		t.Fatalf("second judge named %q, want judge-2", cfg.Judges[1].Name)
	}
	s.Evaluator = Evaluator{}
	if _, err := s.resolve(); err == nil || !strings.Contains(err.Error(), "git config loop.evaluator 'claude -p --model haiku'") {
		t.Fatalf("resolve() without an evaluator = %v, want the fix named", err)
	}
	s = Settings{Prompt: "p", Judges: []string{" "}, Evaluator: Evaluator{Command: "eval"}}
	if _, err := s.resolve(); err == nil {
		t.Fatal("an empty judge was accepted")
	}
}
