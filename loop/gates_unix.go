//go:build unix

package loop

import (
	"os/exec"
	"syscall"
)

// gateCommand runs a gate's command line through the POSIX shell.
func gateCommand(run string) *exec.Cmd {
	return exec.Command("sh", "-c", run)
}

// setGroup makes the gate the leader of a new process group, so that it and everything it
// starts can be signalled at once.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// gateGroup is a started gate's process group.
type gateGroup struct{ pgid int }

// attachGroup returns the process group of a started gate (its pid, as it leads the group).
func attachGroup(cmd *exec.Cmd) gateGroup { return gateGroup{pgid: cmd.Process.Pid} }

// terminate asks every process of the group to stop (SIGTERM).
func (g gateGroup) terminate() { g.signal(syscall.SIGTERM) }

// kill stops every process still in the group (SIGKILL). The group's id cannot be reused
// while any member lives, and a group with no members is simply not found.
func (g gateGroup) kill() { g.signal(syscall.SIGKILL) }

// release frees what the group holds; nothing on Unix.
func (g gateGroup) release() {}

func (g gateGroup) signal(sig syscall.Signal) {
	if g.pgid > 0 {
		_ = syscall.Kill(-g.pgid, sig)
	}
}
