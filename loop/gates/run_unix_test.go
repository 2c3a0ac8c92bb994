//go:build unix

package gates

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunGatesParallelOverlaps(t *testing.T) {
	gates := []Gate{{Name: "a", Run: "sleep 1"}, {Name: "b", Run: "sleep 1"}, {Name: "c", Run: "sleep 1; exit 1"}}
	start := time.Now()
	res := Run(context.Background(), gates, RunOptions{Dir: t.TempDir()})
	elapsed := time.Since(start)
	if elapsed >= 1800*time.Millisecond {
		t.Errorf("three 1s gates took %v: not run in parallel", elapsed)
	}
	for i, r := range res {
		if r.Name != gates[i].Name || r.Duration < time.Second {
			t.Errorf("result %d: %s after %v", i, r.Name, r.Duration)
		}
	}
	if res[0].Status != StatusPass || res[2].Status != StatusFail {
		t.Errorf("statuses %s, %s", res[0].Status, res[2].Status)
	}
	t.Logf("parallel: %v", elapsed)
}

func TestRunGatesSequentialInOrder(t *testing.T) {
	dir := t.TempDir()
	gates := []Gate{
		{Name: "one", Run: "sleep 0.2; echo one >> order"},
		{Name: "two", Run: "echo two >> order"},
	}
	Run(context.Background(), gates, RunOptions{Dir: dir, Sequential: true})
	b, err := os.ReadFile(filepath.Join(dir, "order"))
	if err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("order file %q, %v", b, err)
	}
	// After a failure nothing more runs.
	gates = []Gate{{Name: "f", Run: "exit 1"}, {Name: "after", Run: "touch ran"}}
	res := Run(context.Background(), gates, RunOptions{Dir: dir, Sequential: true})
	if _, err := os.Stat(filepath.Join(dir, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a gate after the failure ran (stat: %v)", err)
	}
	if res[1].Status != StatusSkip || res[1].Tail != notRunTail {
		t.Errorf("got %+v", res[1])
	}
}

func TestRunGatesEnvDirStdin(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "marker"), []byte("here\n"), 0o644)
	g := Gate{Name: "envgate", Run: `cat; echo "gate=$GIT_LOOP_GATE extra=$EXTRA"; cat marker; echo err >&2`}
	res := Run(context.Background(), []Gate{g}, RunOptions{Dir: dir, Env: []string{"EXTRA=yes", "GIT_LOOP_GATE=spoofed"}})
	r := res[0]
	if r.Status != StatusPass {
		t.Fatalf("got %+v", r)
	}
	if want := "gate=envgate extra=yes\nhere\nerr\n"; r.Tail != want {
		t.Errorf("tail %q, want %q", r.Tail, want)
	}
}

// processGone reports whether pid no longer runs (a zombie waiting for a reaper counts as
// gone: it runs nothing and holds nothing open).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist) && runtime.GOOS == "linux"
	}
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z' || stat[i+2] == 'X'
	}
	return false
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

func TestRunGatesTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	// The grandchild ignores SIGTERM, so only the SIGKILL after the grace period stops it.
	g := Gate{Name: "slow", Run: `echo started; (trap '' TERM; exec sleep 30) & echo $! > pid; sleep 30`, Timeout: "300ms"}
	start := time.Now()
	res := Run(context.Background(), []Gate{g}, RunOptions{Dir: dir})
	elapsed := time.Since(start)
	r := res[0]
	if r.Status != StatusTimeout || r.ExitCode != -1 || r.Fingerprint == "" {
		t.Errorf("got %+v, want timeout", r)
	}
	if !strings.HasPrefix(r.Tail, "started\n") || !strings.Contains(r.Tail, "timed out after 300ms") {
		t.Errorf("tail %q", r.Tail)
	}
	if elapsed > 300*time.Millisecond+KillGrace+time.Second {
		t.Errorf("timeout took %v", elapsed)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "pid")))
	t.Logf("timeout with a SIGTERM-ignoring grandchild: %v", elapsed)
}

func TestRunGatesTimeoutPromptWhenTermHonoured(t *testing.T) {
	dir := t.TempDir()
	g := Gate{Name: "slow", Run: `sleep 30 & echo $! > pid; sleep 30`, Timeout: "200ms"}
	start := time.Now()
	res := Run(context.Background(), []Gate{g}, RunOptions{Dir: dir})
	elapsed := time.Since(start)
	if res[0].Status != StatusTimeout {
		t.Fatalf("got %+v", res[0])
	}
	if elapsed > 200*time.Millisecond+KillGrace/2 {
		t.Errorf("a group that exits on SIGTERM took %v", elapsed)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "pid")))
}

func TestRunGatesDefaultTimeoutAndCancel(t *testing.T) {
	dir := t.TempDir()
	res := Run(context.Background(), []Gate{{Name: "d", Run: "sleep 30"}}, RunOptions{Dir: dir, DefaultTimeout: 100 * time.Millisecond})
	if res[0].Status != StatusTimeout {
		t.Errorf("default timeout: got %+v", res[0])
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	gates := []Gate{{Name: "a", Run: "sleep 30"}, {Name: "b", Run: "sleep 30 & echo $! > pid; wait"}, {Name: "c", Run: "exit 0"}}
	start := time.Now()
	res = Run(ctx, gates, RunOptions{Dir: dir})
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("cancel took %v", elapsed)
	}
	if res[0].Status != StatusTimeout || res[1].Status != StatusTimeout || res[2].Status != StatusPass {
		t.Errorf("statuses %s %s %s", res[0].Status, res[1].Status, res[2].Status)
	}
	if !strings.Contains(res[0].Tail, "cancelled") {
		t.Errorf("tail %q", res[0].Tail)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "pid")))
}

func TestRunGatesBackgroundChildHoldsOutput(t *testing.T) {
	dir := t.TempDir()
	g := Gate{Name: "bg", Run: `(sleep 30 & echo $! > pid); echo done; exit 0`}
	start := time.Now()
	res := Run(context.Background(), []Gate{g}, RunOptions{Dir: dir})
	elapsed := time.Since(start)
	if r := res[0]; r.Status != StatusPass || r.Tail != "done\n" {
		t.Errorf("got %+v", r)
	}
	if elapsed > time.Second {
		t.Errorf("RunGates took %v with a background child holding stdout", elapsed)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "pid")))
	t.Logf("background child: %v", elapsed)
}

func TestRunGatesEscapedChildHoldsOutput(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	// setsid puts the child outside the gate's process group, where the group kill cannot
	// reach it; RunGates must still return.
	g := Gate{Name: "escaped", Run: `setsid sh -c 'echo $$ > pid; exec sleep 30' & sleep 0.2; echo done`}
	start := time.Now()
	res := Run(context.Background(), []Gate{g}, RunOptions{Dir: dir})
	elapsed := time.Since(start)
	pid := readPid(t, filepath.Join(dir, "pid"))
	syscall.Kill(pid, syscall.SIGKILL)
	if r := res[0]; r.Status != StatusPass || r.Tail != "done\n" {
		t.Errorf("got %+v", r)
	}
	if elapsed > 0.2e9+2*PipeGrace+500*time.Millisecond {
		t.Errorf("RunGates took %v with an escaped child holding stdout", elapsed)
	}
	t.Logf("escaped child: %v", elapsed)
}

func TestRunGatesHugeOutputBounded(t *testing.T) {
	const size = 200_000_000
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := Run(context.Background(), []Gate{{Name: "yes", Run: "yes | head -c " + strconv.Itoa(size) + "; exit 1"}},
		RunOptions{Dir: t.TempDir(), TailBytes: 4096})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	r := res[0]
	if r.Status != StatusFail || !r.Truncated || len(r.Tail) > 4096 || len(r.Tail) < 4000 {
		t.Fatalf("status %s truncated %v tail %d bytes", r.Status, r.Truncated, len(r.Tail))
	}
	if !strings.HasSuffix(r.Tail, "y\ny\ny\n") {
		t.Errorf("tail ends %q", r.Tail[len(r.Tail)-10:])
	}
	inuse := int64(after.HeapInuse) - int64(before.HeapInuse)
	allocated := after.TotalAlloc - before.TotalAlloc
	if inuse > 50<<20 || allocated > 50<<20 {
		t.Errorf("printing %d MB grew the heap by %d MB and allocated %d MB", size>>20, inuse>>20, allocated>>20)
	}
	t.Logf("%d MB of output in %v; heap in use %+d KB, allocated %d KB", size>>20, elapsed, inuse>>10, allocated>>10)
}

func TestRunGatesFingerprintAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	// Output that differs between runs only in a pid, a temp dir, a timestamp and a duration.
	fail := Gate{Name: "t", Run: `d=$(mktemp -d); echo "--- FAIL: TestX (0.$$s)"; echo "open $d/cfg: no such file (pid $$, at $(date +%s))"; rmdir "$d"; exit 1`}
	a := Run(context.Background(), []Gate{fail}, RunOptions{Dir: dir})[0]
	b := Run(context.Background(), []Gate{fail}, RunOptions{Dir: dir})[0]
	if a.Tail == b.Tail {
		t.Fatalf("test needs outputs that differ: %q", a.Tail)
	}
	if a.Fingerprint != b.Fingerprint {
		t.Errorf("same failure, fingerprints %s and %s:\n%q\n%q", a.Fingerprint, b.Fingerprint, a.Tail, b.Tail)
	}
	other := fail
	other.Run = strings.Replace(fail.Run, "TestX", "TestY", 1)
	if c := Run(context.Background(), []Gate{other}, RunOptions{Dir: dir})[0]; c.Fingerprint == a.Fingerprint {
		t.Errorf("different failures share fingerprint %s", a.Fingerprint)
	}
}
