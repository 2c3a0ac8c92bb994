package gitstore

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the thread that starts it ends (the caller
// holds that thread for the child's whole run).
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
