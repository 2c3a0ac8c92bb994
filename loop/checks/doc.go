// Package checks finds where an iteration weakened the checks a loop's gates run, by
// comparing the files that changed since the loop's start: tests removed or moved out of
// the runner's sight, skip markers added, assertions removed or changed in tests that
// existed at start, test commands and their filters changed, thresholds lowered. New tests
// and new assertions are always welcome.
//
// It is pure: Find is a function of the changed files' contents at start and now and of the
// gates' commands, and reads nothing itself. The caller (package loop) diffs the two
// snapshots and hands it only the files IsCheckFile names. It imports no git and no other
// package of the loop.
package checks
