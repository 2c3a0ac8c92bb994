package gates

import (
	"os"
	"path/filepath"
	"strings"
)

// A guard kills what its gate leaves, and the hook kills what a guard that was killed left
// (see gateGroup.collect): every process of a guarded gate carries gateRunEnv in its
// environment, "<owner>.<n>", where owner names the process that runs the gates and n the
// gate. When the guard and the process running the gates are both killed, nothing is left
// to do it: so that process records its owner name in <commondir>/loop/gates/ while its
// gates run, and the next stop of any loop in the repository kills the processes of a
// recorded owner that is gone (sweepGateOrphans). A process that clears its environment
// (env -i) escapes the mark. The engine names the owner (UseGuard) and gives the directory
// (Watch).

// gateRunEnv marks the processes of a guarded gate.
const gateRunEnv = "GIT_LOOP_GATE_RUN"

// Watch, before gates run, kills what gates of a killed hook and guard left, as recorded in
// dir (sweepGateOrphans; gone tells the owner name of a process that is gone, gitstore's
// OwnerGone), and records this process's own (recordGates); it returns what removes the
// record.
func Watch(dir string, gone func(owner string) bool) (done func()) {
	sweepGateOrphans(dir, gone)
	return recordGates(dir)
}

// recordGates records that this process runs guarded gates in dir, and returns what removes
// the record once they have ended. Where gates run unguarded there is nothing to record.
func recordGates(dir string) (done func()) {
	if !guarded() || gateOwner() == "" {
		return func() {}
	}
	path := filepath.Join(dir, gateOwner())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil && os.MkdirAll(dir, 0o777) == nil {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	}
	if err != nil {
		return func() {} // gates run all the same; only the sweep after a double kill is lost
	}
	f.Close()
	return func() { os.Remove(path) }
}

// sweepGateOrphans kills the gate processes of every recorded owner that is gone, and
// removes its record: what a gate left running when both its guard and the process that
// ran it were killed. It costs one directory read when nothing is recorded.
func sweepGateOrphans(dir string, gone func(owner string) bool) {
	if !guarded() {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !gone(name) {
			continue
		}
		killMarked(name+".", true)
		os.Remove(filepath.Join(dir, name))
	}
}
