//go:build unix

package gates

import (
	"os"
	"os/exec"
	"syscall"
)

// Command is the command that runs a command line (a gate's, an evaluator's) as gates
// run: through the POSIX shell, under a guard where there is one (see guard_linux.go).
func Command(run string) *exec.Cmd {
	if cmd := guardCommand(run); cmd != nil {
		return cmd
	}
	return exec.Command("sh", "-c", run)
}

// setGroup makes the command the leader of a new process group, so that it and everything it
// starts can be signalled at once, and (on Linux) ties it to this process's life.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	tieToParent(cmd)
	markGuarded(cmd)
}

// gateGroup is a started command's process group.
type gateGroup struct {
	pgid    int
	guarded bool   // the leader is a guard, which kills the gate's processes itself
	mark    string // the mark of the guarded gate's processes (see gateRunEnv)
}

// attachGroup returns the process group of a started command (its pid, as it leads the group).
func attachGroup(cmd *exec.Cmd) gateGroup {
	return gateGroup{pgid: cmd.Process.Pid, guarded: isGuard(cmd), mark: gateMark(cmd)}
}

// terminate asks every process of the group to stop (SIGTERM); a guard passes it on.
func (g gateGroup) terminate() { g.signal(syscall.SIGTERM) }

// kill stops the command and everything it started now; call it only before the command's
// main process has been waited for. A guard is told to (SIGHUP) and does it.
func (g gateGroup) kill() {
	if g.guarded {
		if g.pgid > 0 {
			_ = syscall.Kill(g.pgid, syscall.SIGHUP)
		}
		return
	}
	g.signal(syscall.SIGKILL)
}

// forceKill kills every process still in the group (SIGKILL), a guard included.
func (g gateGroup) forceKill() { g.signal(syscall.SIGKILL) }

// cleanup kills what the command left running in its group once its main process has ended,
// so the output pipe closes. A guard has done it before exiting. The group's id cannot be
// reused while any member lives, and a group with no members is simply not found.
func (g gateGroup) cleanup() {
	if !g.guarded {
		g.signal(syscall.SIGKILL)
	}
}

// collect kills what a guard that was killed left running: its shell dies with it (its
// parent-death signal), but what the shell started does not, and no guard is left to kill
// it. A guard killed by a signal is told from one that ended by itself by its status (a
// guard whose shell died of a signal dies of it too, so that case is swept as well, and
// finds nothing). ps is the guard's state once waited for.
func (g gateGroup) collect(ps *os.ProcessState) {
	if g.mark == "" || ps == nil {
		return
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		killMarked(g.mark, false)
	}
}

// release frees what the group holds; nothing on Unix.
func (g gateGroup) release() {}

func (g gateGroup) signal(sig syscall.Signal) {
	if g.pgid > 0 {
		_ = syscall.Kill(-g.pgid, sig)
	}
}
