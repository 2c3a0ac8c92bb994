package loop

import (
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
)

// A stop hook's work nests inside the timeout its agent gives it: the snapshot, then the
// gates (in parallel), then the evaluator when the loop has judges, then the record and the
// answer. The gates get what is left once room
// for the record is kept, so a gate over its share is cut, killed and recorded as a timeout,
// rather than the agent killing the hook with nothing recorded.

const (
	// hookSnapshotAllowance is what a stop may spend before its gates start: reading the
	// state and the agent's message, and the snapshot.
	hookSnapshotAllowance = 40 * time.Second
	// hookRecordMargin is what a stop keeps after its gates to record the iteration and
	// answer the agent.
	hookRecordMargin = 15 * time.Second
	// hookTimeoutStep rounds hook timeouts up, so they read as round numbers in the agents'
	// files.
	hookTimeoutStep = 10 * time.Second
)

// HookTimeout is the timeout an agent should give git-loop's stop hook for a loop with these
// gates and, when it has judges, this evaluator (nil: none): the longest gate timeout — at
// least the default, which a gate added later with --gate gets — plus the grace to stop a
// gate, the snapshot before the gates, the evaluator's timeout after them and the record
// after all, rounded up to 10 seconds. With no gate or only default ones and no judge it is
// 660 s. install writes it (from .gitloop and git config), and a stop that cannot find the
// timeout its agent was given assumes it.
func HookTimeout(gs []gates.Gate, ev *Evaluator) time.Duration {
	longest := gates.DefaultTimeout
	for _, g := range gs {
		longest = max(longest, g.TimeoutOr(gates.DefaultTimeout))
	}
	d := longest + gates.KillGrace + 2*gates.PipeGrace + hookSnapshotAllowance + hookRecordMargin
	if ev != nil {
		d += ev.timeout() + gates.KillGrace + 2*gates.PipeGrace
	}
	return (d + hookTimeoutStep - 1) / hookTimeoutStep * hookTimeoutStep
}

// settingsEvaluator is the evaluator a loop with these settings judges with, nil without judges.
func settingsEvaluator(judges []string, ev Evaluator) *Evaluator {
	if len(judges) == 0 {
		return nil
	}
	return &ev
}

// gatesDeadline is when a stop that began at began, under a hook timeout of timeout (0: the
// loop's HookTimeout), must have its gates and evaluator done: the record margin before the
// agent kills it.
func gatesDeadline(began time.Time, timeout time.Duration, cfg *Config) time.Time {
	if timeout <= 0 {
		timeout = HookTimeout(cfg.Gates, cfg.judgesEvaluator())
	}
	return began.Add(timeout - hookRecordMargin)
}

// judgesEvaluator is the loop's evaluator when it has judges, or judges its test edits,
// else nil.
func (c *Config) judgesEvaluator() *Evaluator {
	if len(c.Judges) == 0 && c.TestEdits != TestEditsJudge {
		return nil
	}
	return c.Evaluator
}

// ConfiguredHookTimeout is the HookTimeout of a loop started in the worktree containing dir,
// from its .gitloop and git config (the default when dir is in no repository, or they do
// not parse).
func ConfiguredHookTimeout(dir string) time.Duration {
	r, err := gitstore.Open(dir)
	if err != nil {
		return HookTimeout(nil, nil)
	}
	s, err := loadSettings(r)
	if err != nil {
		return HookTimeout(nil, nil)
	}
	return HookTimeout(s.Gates, settingsEvaluator(s.Judges, s.Evaluator))
}
