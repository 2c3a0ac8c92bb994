//go:build !linux

package gitstore

import "os/exec"

// dieWithParent does nothing where the system has no parent-death signal: a roll-up killed
// mid-run leaves its git repack to finish on its own.
func dieWithParent(cmd *exec.Cmd) {}
