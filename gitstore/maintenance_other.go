//go:build !unix

package gitstore

import "os/exec"

// detach does nothing where sessions do not exist: the process is still not waited for and
// holds none of git-loop's standard streams.
func detach(cmd *exec.Cmd) {}
