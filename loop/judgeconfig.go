package loop

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
)

// Evaluator gates (issue 14): a condition in plain words that no command expresses ("the
// README explains the new flag"), judged by an evaluator — a headless model command such as
// `claude -p --model haiku`, run through the shell as gates are — once every command gate
// passes. Their configuration is fixed at start in loop.json, as the gates' is, so a fetched
// loop's evaluator runs only with --trust.

// Evaluator defaults.
const (
	// DefaultEvaluatorTimeout applies when loop.evaluatorTimeout is not set.
	DefaultEvaluatorTimeout = 2 * time.Minute
	// DefaultEvaluatorBudget is how many evaluator runs a loop may make when
	// loop.evaluatorBudget is not set.
	DefaultEvaluatorBudget = 50
	// EvaluatorExample is the evaluator the error for a judge without one suggests.
	EvaluatorExample = "claude -p --model haiku"
)

// Judge is one evaluator gate: a condition the evaluator must judge met.
type Judge struct {
	Name      string `json:"name"` // judge, or judge-2, judge-3… when there are several
	Condition string `json:"condition"`
}

// Evaluator is the command that judges a loop's conditions, and its limits.
type Evaluator struct {
	Command string `json:"command"`
	Timeout string `json:"timeout,omitempty"` // a duration; "" is DefaultEvaluatorTimeout
	// Budget is how many times the evaluator may run for this loop (0: DefaultEvaluatorBudget);
	// CostBudget, when set, is the dollars its runs may cost as they report it.
	Budget     int     `json:"budget,omitempty"`
	CostBudget float64 `json:"cost_budget_usd,omitempty"`
}

// timeout is the evaluator's timeout.
func (e *Evaluator) timeout() time.Duration {
	if d, err := time.ParseDuration(e.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultEvaluatorTimeout
}

// budget is how many runs the loop may make: a resume's raise, else loop.json's.
func (e *Evaluator) budget(st *State) int {
	if st.EvaluatorBudget > 0 {
		return st.EvaluatorBudget
	}
	return orDefault(e.Budget, DefaultEvaluatorBudget)
}

// applyJudges reads loop.judge (repeatable) and loop.evaluator*.
func (s *Settings) applyJudges(c *gitstore.Config, where string) error {
	if v := c.All("loop", "", "judge"); len(v) > 0 {
		s.Judges = v
	}
	e := &s.Evaluator
	if v := c.Get("loop", "", "evaluator"); v != "" {
		e.Command = v
	}
	if v := c.Get("loop", "", "evaluatortimeout"); v != "" {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			return fmt.Errorf("%w: loop.evaluatorTimeout %q in %s: want a duration such as 2m", ErrConfig, v, where)
		}
		e.Timeout = v
	}
	if c.Has("loop", "", "evaluatorbudget") {
		n, err := gitstore.ParseInt(c.Get("loop", "", "evaluatorbudget"))
		if err != nil || n < 1 {
			return fmt.Errorf("%w: loop.evaluatorBudget in %s: want a number of evaluator runs ≥ 1", ErrConfig, where)
		}
		e.Budget = int(n)
	}
	if v := c.Get("loop", "", "evaluatorcostbudget"); v != "" {
		f, err := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
		if err != nil || f <= 0 {
			return fmt.Errorf("%w: loop.evaluatorCostBudget %q in %s: want dollars such as 0.50", ErrConfig, v, where)
		}
		e.CostBudget = f
	}
	return nil
}

// override applies the set fields of o over e.
func (e *Evaluator) override(o Evaluator) {
	if o.Command != "" {
		e.Command = o.Command
	}
	if o.Timeout != "" {
		e.Timeout = o.Timeout
	}
	if o.Budget > 0 {
		e.Budget = o.Budget
	}
	if o.CostBudget > 0 {
		e.CostBudget = o.CostBudget
	}
}

// setJudges names the conditions as judges and fixes the evaluator that judges them. A
// judge needs an evaluator: without one the loop is refused, with the command that sets it,
// in the words of what the person typed (goal: the first condition is `git loop goal`'s).
func (c *Config) setJudges(conditions []string, ev Evaluator, goal bool) error {
	c.Judges = nil
	for i, cond := range conditions {
		cond = strings.TrimSpace(cond)
		if cond == "" {
			return fmt.Errorf("%w: --judge is empty; give the condition in words, e.g. --judge 'the README explains the new flag'", ErrConfig)
		}
		name := "judge"
		if len(conditions) > 1 {
			name = fmt.Sprintf("judge-%d", i+1)
		}
		for _, g := range c.Gates {
			if g.Name == name {
				return fmt.Errorf("%w: gate %q has the name of an evaluator gate; rename the gate", ErrConfig, name)
			}
		}
		c.Judges = append(c.Judges, Judge{Name: name, Condition: cond})
	}
	if len(c.Judges) == 0 && c.TestEdits != TestEditsJudge {
		return nil
	}
	if strings.TrimSpace(ev.Command) == "" {
		if len(c.Judges) == 0 {
			return fmt.Errorf("%w: loop.testEdits = judge needs an evaluator to judge the test edits; set one with `git config loop.evaluator '%s'`", ErrConfig, EvaluatorExample)
		}
		if goal {
			return fmt.Errorf("%w: `git loop goal` needs an evaluator to judge the condition; set one with `git config loop.evaluator '%s'`", ErrConfig, EvaluatorExample)
		}
		return fmt.Errorf("%w: --judge needs an evaluator to judge it; set one with `git config loop.evaluator '%s'`", ErrConfig, EvaluatorExample)
	}
	c.Evaluator = &ev
	return nil
}

// JudgeRun is what an evaluator gate's column shows where a gate shows its command.
const JudgeRun = "evaluator judges: "

// AllGates is the loop's gates as a person reads them, in layer order: its command gates,
// then one per judge, whose Run is JudgeRun and the condition.
func (c *Config) AllGates() []gates.Gate {
	if len(c.Judges) == 0 {
		return c.Gates
	}
	all := append([]gates.Gate(nil), c.Gates...)
	for _, j := range c.Judges {
		all = append(all, gates.Gate{Name: j.Name, Run: JudgeRun + j.Condition})
	}
	return all
}
