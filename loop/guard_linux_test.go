package loop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGuardKillsWhatLeftTheGroup: under a guard, a process a gate started outside its own
// process group (setsid, a double fork) dies when the gate ends, whether the gate passed,
// failed or timed out, and the gate's result is what it would be without a guard.
func TestGuardKillsWhatLeftTheGroup(t *testing.T) {
	useGuard(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	tests := []struct {
		name, run, timeout, status string
		code                       int
	}{
		{"passes", `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; echo done`, "", GatePass, 0},
		{"fails", `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; exit 1`, "", GateFail, 1},
		{"double fork", `(setsid sh -c 'echo $$ > pid; sleep 30 & wait' &); sleep 0.2`, "", GatePass, 0},
		{"times out", `setsid sh -c 'echo $$ > pid; exec sleep 30' & trap '' TERM; sleep 30`, "500ms", GateTimeout, -1},
		{"killed by a signal", `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; kill -KILL $$`, "", GateFail, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			res := runGates(context.Background(), []Gate{{Name: "g", Run: tt.run, Timeout: tt.timeout}}, RunOptions{Dir: dir})
			if r := res[0]; r.Status != tt.status || r.ExitCode != tt.code {
				t.Errorf("got %s exit %d, want %s exit %d (tail %q)", r.Status, r.ExitCode, tt.status, tt.code, r.Tail)
			}
			// Gone at once, not eventually: the guard reaped it before the gate's result.
			if pid := readPid(t, filepath.Join(dir, "pid")); !processGone(pid) {
				t.Errorf("process %d that left the gate's group still runs", pid)
				waitGone(t, pid)
			}
		})
	}
}

// useGuard runs the test's gates under a guard, this test binary (see TestMain), as git-loop
// runs them. The other gate tests run gates unguarded: a guard is one more process start,
// which a race-detector build makes slow enough to upset their timings.
func useGuard(t *testing.T) {
	UseGateGuard(os.Executable)
	t.Cleanup(func() { UseGateGuard(nil) })
}
