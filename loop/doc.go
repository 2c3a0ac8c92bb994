// Package loop is git-loop's engine. It holds a loop's configuration (.gitloop, git config,
// the start flags) and its state, stored as commits on refs/loop/<name> with atomic ref
// updates (Store), and makes the decision at each stop of an agent:
//
//   - the lifecycle: start, checkpoint, pause, resume, cancel, approve, restore, adopt;
//   - an iteration (iterate.go): a snapshot of the worktree, held until its state commit;
//     the gates run on it (loop/gates; their results as the iteration records them,
//     gaterun.go) and the evaluator gates (evaluator.go, loop/judge); the weakened checks
//     since the loop's start (weakened.go, loop/checks);
//   - the decision (decide.go) in its fixed order, then the policy and the circuit breakers
//     (policy.go, breakers.go, limits.go, budget.go, pace.go), and the message that sends
//     the agent back (continuation.go, messages.go, briefing.go);
//   - the hot-state cache beside the ref (hot.go), a cache to verify, never the truth.
//
// Commands that only start, read or present loops live in the packages beside it (review,
// report, share, driver, importer, project); the engine imports none of them. ARCHITECTURE.md
// at the module's root has the layers and the hot path.
package loop
