package loop

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-loop/git-loop/gitstore"
)

// A guard kills what its gate leaves, and the hook kills what a guard that was killed left
// (see gateGroup.collect): every process of a guarded gate carries gateRunEnv in its
// environment, "<owner>.<n>", where owner names the process that runs the gates and n the
// gate. When the guard and the process running the gates are both killed, nothing is left
// to do it: so that process records its owner name in <commondir>/loop/gates/ while its
// gates run, and the next stop of any loop in the repository kills the processes of a
// recorded owner that is gone (sweepGateOrphans). A process that clears its environment
// (env -i) escapes the mark.

// gateRunEnv marks the processes of a guarded gate.
const gateRunEnv = "GIT_LOOP_GATE_RUN"

// gateOwner names this process in the marks of its gates, once.
var gateOwner = sync.OnceValue(gitstore.OwnerName)

// gatesDir is where processes running gates record themselves.
func gatesDir(r *gitstore.Repo) string { return filepath.Join(r.LoopDir(), "gates") }

// watchGates, before a stop or check runs cfg's gates, kills what gates of a killed hook
// and guard left (sweepGateOrphans) and records this process's own (recordGates); it returns
// what removes the record. Without gates there is nothing to do.
func (s *Store) watchGates(cfg *Config) (done func()) {
	if len(cfg.Gates) == 0 {
		return func() {}
	}
	sweepGateOrphans(s.Repo)
	return recordGates(s.Repo)
}

// recordGates records that this process runs guarded gates in r, and returns what removes
// the record once they have ended. Where gates run unguarded there is nothing to record.
func recordGates(r *gitstore.Repo) (done func()) {
	if !guarded() {
		return func() {}
	}
	path := filepath.Join(gatesDir(r), gateOwner())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil && os.MkdirAll(gatesDir(r), 0o777) == nil {
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
func sweepGateOrphans(r *gitstore.Repo) {
	if !guarded() {
		return
	}
	entries, err := os.ReadDir(gatesDir(r))
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !gitstore.OwnerGone(name) {
			continue
		}
		killMarked(name+".", true)
		os.Remove(filepath.Join(gatesDir(r), name))
	}
}
