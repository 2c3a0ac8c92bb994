// Package gates runs a loop's command gates. Each gate's command line runs through the
// shell (Command), all the gates at once or one after another (Run), each in a process
// group of its own (RunInGroup), within its timeout and the stop's deadline; its output is
// kept as a bounded tail (TailBuffer). On Linux each gate runs under a guard, git-loop
// itself run again (GuardArg, RunGuard), that kills whatever the gate leaves running, even
// processes that left its group; the marks its processes carry let the process running the
// gates kill what a killed guard left, and the next stop what both left (Watch).
//
// It reads how each gate ended (Result): its exit status by CI's rule or by the rule the
// gate declares (exitCodes, such as layered), the signal that killed it, a fingerprint that
// stays the same across reruns of the same failure, and, through loop/diag, the diagnostics
// of its output and coverage report, checked against its require conditions. The engine's
// evaluator, `git loop run`'s agent and bisect's command run in a process group through
// RunInGroup too.
//
// It may not import the loop engine or anything above it, nor gitstore or snapshots: the
// engine hands it the gates and the worktree, and records their results beside the
// evaluator gates' verdicts (loop.GateResult).
package gates
