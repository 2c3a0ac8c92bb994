package loop

import (
	"context"
	"path/filepath"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
)

// GateResult is one gate's result as an iteration records it: a command gate's, as package
// gates ran it, or an evaluator gate's, which holds the evaluator's verdict too. Its JSON is
// the command gate's fields, then judge.
type GateResult struct {
	gates.Result
	// Judge is set for an evaluator gate: the condition and the evaluator's verdict.
	Judge *JudgeInfo `json:"judge,omitempty"`
}

// runGates runs the loop's command gates in opts.Dir (gates.Run) and returns their results
// as an iteration records them, in gate order.
func runGates(ctx context.Context, gs []gates.Gate, opts gates.RunOptions) []GateResult {
	ran := gates.Run(ctx, gs, opts)
	results := make([]GateResult, len(ran))
	for i, r := range ran {
		results[i] = GateResult{Result: r}
	}
	return results
}

// UseGateGuard makes the engine run each gate under a guard where the platform has one
// (gates.UseGuard): exe names the executable that runs gates.RunGuard when its first
// argument is gates.GuardArg — git-loop itself (os.Executable). The processes of its gates
// carry this process's owner name (gitstore.OwnerName), so that what they leave when both
// the guard and this process are killed is found by the next stop (watchGates).
func UseGateGuard(exe func() (string, error)) {
	gates.UseGuard(exe, gitstore.OwnerName)
}

// watchGates, before a stop or check runs cfg's gates, kills what gates of a killed hook
// and guard left and records this process's own in <commondir>/loop/gates/ (gates.Watch);
// it returns what removes the record. Without gates there is nothing to do.
func (s *Store) watchGates(cfg *Config) (done func()) {
	if len(cfg.Gates) == 0 {
		return func() {}
	}
	return gates.Watch(filepath.Join(s.Repo.LoopDir(), "gates"), gitstore.OwnerGone)
}
