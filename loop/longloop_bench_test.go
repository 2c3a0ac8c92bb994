package loop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/testdata/realagents"
)

// BenchmarkLongLoopStop times the active hook's work (judging one stop: snapshot, one gate,
// decision, state commit; all but process start) in a loop at iteration 10 and in one at
// iteration 10,000 (issue 13: within 1.1x), each alone and then interleaved (the fair
// comparison: its ratio metric). Each loop is made by judging that many stops,
// each with a changed file and a new message, in a one-file repository with git's default
// gc.auto, so git-loop's own housekeeping (the roll-up of git-loop built from this module,
// as an installed git-loop starts it) has packed the long loop's objects as it would a
// user's. Making the long loop takes minutes, so it runs only with $GITLOOP_LONGLOOP_DIR,
// which keeps the repositories between runs (BenchmarkLongLoopReport, in loop/report, times
// the report of the long one there).
// Add -benchmem for the memory per stop.
func BenchmarkLongLoopStop(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	base := os.Getenv("GITLOOP_LONGLOOP_DIR")
	if base == "" { // minutes to make: not part of a plain go test -bench . ./...
		b.Skip("set GITLOOP_LONGLOOP_DIR to a directory to make (and keep) the long loops in")
	}
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o777)
	cfg := filepath.Join(home, ".gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"+
		"[loop]\n\tshape = tool\n\tnoProgressLimit = 1000000\n\tstuckLimit = 1000000\n"), 0o666)
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_CONFIG_GLOBAL", cfg)
	exe, _, err := realagents.GitLoop("..")
	if err != nil {
		b.Fatal(err)
	}
	defer realagents.RemoveBuild()
	UseBackgroundMaintenance(func() (string, error) { return exe, nil })
	defer UseBackgroundMaintenance(nil)
	type long struct {
		s   *Store
		dir string
	}
	var loops []long
	for _, n := range []int{10, 10000} {
		s, dir := makeLongLoop(b, filepath.Join(base, fmt.Sprintf("loop%d", n)), n)
		loops = append(loops, long{s, dir})
	}
	for i, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("iteration=%d", n), func(b *testing.B) {
			benchStops(b, loops[i].s, loops[i].dir)
		})
	}
	// Both loops stop by turns, each stop timed: whatever the machine or its disk does at a
	// moment (a journal commit, another process) falls on both alike, not on whichever
	// benchmark ran second. Reports each loop's median stop and their ratio.
	b.Run("interleaved", func(b *testing.B) {
		run := time.Now().UnixNano()
		times := [2][]time.Duration{}
		gitstore.WaitMaintenance()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j, l := range loops {
				start := time.Now()
				longLoopStop(b, l.s, l.dir, fmt.Sprintf("bench %d.%d", run, i))
				times[j] = append(times[j], time.Since(start))
				b.StopTimer()
				gitstore.WaitMaintenance()
				b.StartTimer()
			}
		}
		m10, m10k := median(times[0]), median(times[1])
		b.ReportMetric(float64(m10.Microseconds())/1000, "ms/stop@10")
		b.ReportMetric(float64(m10k.Microseconds())/1000, "ms/stop@10000")
		b.ReportMetric(float64(m10k)/float64(m10), "ratio")
	})
}

// benchStops times b.N stops of one loop.
func benchStops(b *testing.B, s *Store, dir string) {
	run := time.Now().UnixNano() // each run's trees new: a tree seen before trips the thrashing breaker
	gitstore.WaitMaintenance()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		longLoopStop(b, s, dir, fmt.Sprintf("bench %d.%d", run, i))
		// The git maintenance a stop starts runs after the hook has answered; on two
		// cores it would slow the next stop, which no hook would meet so soon.
		b.StopTimer()
		gitstore.WaitMaintenance()
		b.StartTimer()
	}
}

// median is the middle of ds (sorted in place).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// makeLongLoop opens the repository at dir with loop "long" at iteration n or more, making it
// (or adding what it lacks) by judging stops.
func makeLongLoop(b *testing.B, dir string, n int) (*Store, string) {
	b.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		os.MkdirAll(dir, 0o777)
		if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
			b.Fatalf("git init: %v\n%s", err, out)
		}
		os.WriteFile(filepath.Join(dir, "work.txt"), []byte("start\n"), 0o666)
		s, err := OpenStore(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Start(StartOptions{Name: "long", Flags: Settings{Prompt: "make work.txt right",
			Promises: []string{"NEVER SAID"}, Unlimited: true, Gates: []gates.Gate{{Name: "pass", Run: "true"}}}}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	_, st, err := s.ReadState("long")
	if err != nil {
		b.Fatal(err)
	}
	for i := st.Iteration; i < n; i++ {
		longLoopStop(b, s, dir, strconv.Itoa(i))
	}
	return s, dir
}

// longLoopStop changes the worktree and judges one stop, which must send the agent back.
func longLoopStop(b *testing.B, s *Store, dir, turn string) {
	if err := os.WriteFile(filepath.Join(dir, "work.txt"), []byte("turn "+turn+"\n"), 0o666); err != nil {
		b.Fatal(err)
	}
	r, err := s.Stop(context.Background(), "long", StopInput{Session: "s", Message: "working, turn " + turn, MessageKnown: true, Kind: "stop"})
	if err != nil {
		b.Fatal(err)
	}
	if r.Verdict.Decision != DecideContinue {
		b.Fatalf("turn %s: %s (%s)", turn, r.Verdict.Decision, strings.TrimSpace(r.Verdict.Reason))
	}
}
