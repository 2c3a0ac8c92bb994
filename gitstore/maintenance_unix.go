//go:build unix

package gitstore

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so that no terminal signal meant for the
// agent or its hook (a Ctrl-C, a hang-up) reaches it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
