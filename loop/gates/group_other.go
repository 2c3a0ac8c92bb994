//go:build !unix && !windows

package gates

import (
	"os"
	"os/exec"
)

// Command is the command that runs a command line (a gate's, an evaluator's) as gates
// run: through the shell.
func Command(run string) *exec.Cmd {
	return exec.Command("sh", "-c", run)
}

// setGroup does nothing where process groups are not available.
func setGroup(cmd *exec.Cmd) {}

// gateGroup is only the gate's own process where process groups are not available.
type gateGroup struct{ proc *os.Process }

// attachGroup returns the started gate's process.
func attachGroup(cmd *exec.Cmd) gateGroup { return gateGroup{proc: cmd.Process} }

// terminate stops the gate's process.
func (g gateGroup) terminate() { g.kill() }

// kill stops the gate's process.
func (g gateGroup) kill() { _ = g.proc.Kill() }

// forceKill stops the gate's process.
func (g gateGroup) forceKill() { g.kill() }

// cleanup does nothing: the gate's process has ended.
func (g gateGroup) cleanup() {}

// collect does nothing: there are no guards here.
func (g gateGroup) collect(ps *os.ProcessState) {}

// release does nothing.
func (g gateGroup) release() {}
