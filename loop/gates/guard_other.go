//go:build !linux

package gates

import (
	"fmt"
	"os"
	"os/exec"
)

// Where there is no parent-death signal nor child subreaper (macOS, the BSDs) gates run
// without a guard: a gate's process group is killed on timeout and when the hook is
// interrupted (SIGINT, SIGTERM), but a SIGKILLed hook leaves its gates running, and a
// process that left the gate's group (setsid) is not found. On Windows the gate's job
// object is closed, and its processes killed, when the hook's process ends however it ends.

// guardCommand returns nil: gates run unguarded here.
func guardCommand(run string) *exec.Cmd { return nil }

// isGuard reports false: there are no guards here.
func isGuard(cmd *exec.Cmd) bool { return false }

// RunGuard is not available here.
func RunGuard(args []string) int {
	fmt.Fprintln(os.Stderr, "git-loop: gate guards exist on Linux only")
	return 2
}

// guarded reports false: gates run unguarded here.
func guarded() bool { return false }

// markGuarded does nothing: there are no guards here.
func markGuarded(cmd *exec.Cmd) {}

// gateMark is "": there are no guards here.
func gateMark(cmd *exec.Cmd) string { return "" }

// killMarked does nothing: no process is marked here.
func killMarked(mark string, prefix bool) {}
