// Package review is how a person reads loops: `status` and `list`, `log` (newest first,
// with the gate matrix), `show` and `diff` of iterations, and `bisect`, which runs a
// command over the loop's snapshots in scratch worktrees to find the iteration that broke
// it.
//
// It only reads loops, through the engine (package loop); it never changes a loop's ref,
// and the engine does not import it. Restoring a worktree is a change of the loop, so
// `restore` is the engine's.
package review
