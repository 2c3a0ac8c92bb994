package gates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
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
		{"passes", `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; echo done`, "", StatusPass, 0},
		{"fails", `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; exit 1`, "", StatusFail, 1},
		{"double fork", `(setsid sh -c 'echo $$ > pid; sleep 30 & wait' &); sleep 0.2`, "", StatusPass, 0},
		{"times out", `setsid sh -c 'echo $$ > pid; exec sleep 30' & trap '' TERM; sleep 30`, "500ms", StatusTimeout, -1},
		{"killed by a signal", `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; kill -KILL $$`, "", StatusFail, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			res := Run(context.Background(), []Gate{{Name: "g", Run: tt.run, Timeout: tt.timeout}}, RunOptions{Dir: dir})
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
// runs them, their processes marked with a name of this process. The other gate tests run
// gates unguarded: a guard is one more process start, which a race-detector build makes
// slow enough to upset their timings.
func useGuard(t *testing.T) {
	UseGuard(os.Executable, func() string { return "gates-test-" + strconv.Itoa(os.Getpid()) })
	t.Cleanup(func() { UseGuard(nil, nil) })
}

// TestKillMarked: the processes whose mark is the one given die (with prefix, those whose
// mark starts with it), also a child that left their process group; the others live.
func TestKillMarked(t *testing.T) {
	tests := []struct {
		name   string
		mark   string
		prefix bool
		dies   map[string]bool // mark of a process → whether it must die
	}{
		{"exact", "o1.1", false, map[string]bool{"o1.1": true, "o1.11": false, "o1.2": false}},
		{"prefix", "o2.", true, map[string]bool{"o2.1": true, "o2.7": true, "o20.1": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The setsid children leave their group, which the kills below reach: the
			// marks take them all at the end, so no sleep outlives the test.
			defer killMarked(t.Name(), true)
			procs := map[string]*exec.Cmd{}
			for mark := range tt.dies {
				// a marked shell whose child leaves its group, as a gate's setsid child does
				cmd := exec.Command("sh", "-c", "setsid sleep 30 & wait")
				cmd.Env = append(os.Environ(), gateRunEnv+"="+t.Name()+mark)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
				procs[mark] = cmd
			}
			for i := 0; len(markedProcesses(t.Name(), true)) < 2*len(procs); i++ {
				if i > 500 {
					t.Fatal("the marked processes did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			killMarked(t.Name()+tt.mark, tt.prefix)
			for mark, dies := range tt.dies {
				left := len(markedProcesses(t.Name()+mark, false))
				if dies && left > 0 || !dies && left != 2 {
					t.Errorf("mark %s: %d processes left, want them to die: %v", mark, left, dies)
				}
			}
		})
	}
}
