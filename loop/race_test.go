package loop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// TestMain lets the test binary act as a child process: checkpointing for TestRaceCheckpoint,
// starting a loop for TestRaceStart.
func TestMain(m *testing.M) {
	if dir := os.Getenv("GITLOOP_RACE_CHILD"); dir != "" {
		os.Exit(raceChild(dir))
	}
	if dir := os.Getenv("GITLOOP_START_CHILD"); dir != "" {
		os.Exit(startChild(dir))
	}
	// Built with -race, every child (each checkpointer, each start) would wait a second
	// at exit for late race reports; a GORACE the developer set still wins.
	os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
	os.Exit(m.Run())
}

// raceChild checkpoints loop "race" N times and prints each acknowledged iteration number.
func raceChild(dir string) int {
	n, _ := strconv.Atoi(os.Getenv("GITLOOP_RACE_N"))
	for i := 0; i < n; i++ {
		r, err := gitstore.Open(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		st, _, err := NewStore(r).Checkpoint("race")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(st.Iteration)
	}
	return 0
}

// TestRaceCheckpoint runs several processes checkpointing one loop while git itself keeps
// taking the lock on the same ref; every acknowledged iteration must be in the history.
func TestRaceCheckpoint(t *testing.T) {
	dir := newTestRepo(t)
	// Every attempt of a state write is a pack, so the children's lost races leave dozens:
	// past gc.autoPackLimit a child starts git's gc in the background (this test binary
	// configures no roll-up), which would still be repacking when the test removes the
	// repository. Background maintenance is not what this test is about.
	looptest.GitOut(t, dir, "config", "maintenance.auto", "false")
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewStore(r).Start(StartOptions{Name: "race", Flags: Settings{Prompt: "p", Promises: []string{"DONE"}, Unlimited: true}}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	gitDone := make(chan int)
	go func() { gitDone <- gitHoldsLock(ctx, dir) }()

	const children, each = 3, 12
	acked := make([][]int, children)
	var wg sync.WaitGroup
	for c := 0; c < children; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			acked[c] = runChild(t, dir, each)
		}(c)
	}
	wg.Wait()
	stop()
	gitUpdates := <-gitDone

	history := iterationsInHistory(t, dir)
	seen := map[int]bool{}
	for c, list := range acked {
		if len(list) != each {
			t.Fatalf("child %d acknowledged %d checkpoints, want %d", c, len(list), each)
		}
		for _, it := range list {
			if seen[it] {
				t.Errorf("iteration %d acknowledged twice", it)
			}
			seen[it] = true
			if !history[it] {
				t.Errorf("acknowledged iteration %d is not in the loop's history", it)
			}
		}
	}
	if len(history) != children*each+1 {
		t.Errorf("history has %d iterations, want %d", len(history), children*each+1)
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
	t.Logf("%d checkpoints by %d processes, %d lock-taking updates by git", children*each, children, gitUpdates)
}

func runChild(t *testing.T, dir string, n int) []int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GITLOOP_RACE_CHILD="+dir, "GITLOOP_RACE_N="+strconv.Itoa(n))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("child: %v\n%s", err, stderr.String())
	}
	var its []int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, err := strconv.Atoi(sc.Text()); err == nil {
			its = append(its, v)
		}
	}
	return its
}

// gitHoldsLock makes git take refs/loop/race's lock over and over (an update to the same
// value), as a concurrent `git` command would, until ctx ends. It returns how many it made.
func gitHoldsLock(ctx context.Context, dir string) int {
	n := 0
	for ctx.Err() == nil {
		cur, err := exec.Command("git", "-C", dir, "rev-parse", "refs/loop/race").Output()
		if err != nil {
			continue
		}
		c := strings.TrimSpace(string(cur))
		if exec.Command("git", "-C", dir, "update-ref", "refs/loop/race", c, c).Run() == nil {
			n++
		}
	}
	return n
}

// iterationsInHistory reads the iteration numbers of the state commits along the
// first-parent chain, from their Loop-Iteration trailers.
func iterationsInHistory(t *testing.T, dir string) map[int]bool {
	out, err := exec.Command("git", "-C", dir, "log", "--first-parent", "--format=%s|%(trailers:key=Loop-Iteration,valueonly,separator=)", "refs/loop/race").Output()
	if err != nil {
		t.Fatal(err)
	}
	its := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		subject, val, _ := strings.Cut(line, "|")
		if strings.HasSuffix(subject, ": created") {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			t.Fatalf("state commit %q has no Loop-Iteration trailer", line)
		}
		its[v] = true
	}
	return its
}

// newTestRepo is looptest.NewRepo.
func newTestRepo(t testing.TB) string { return looptest.NewRepo(t) }

// startChild waits for the moment in $GITLOOP_START_AT (unix nanoseconds), so that every
// child starts together, then starts loop $GITLOOP_START_NAME in dir. It exits 0 when the
// loop started, 4 when Start said the worktree is busy, 1 on any other error.
func startChild(dir string) int {
	r, err := gitstore.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	at, _ := strconv.ParseInt(os.Getenv("GITLOOP_START_AT"), 10, 64)
	for time.Now().UnixNano() < at {
	}
	_, err = NewStore(r).Start(StartOptions{Name: os.Getenv("GITLOOP_START_NAME"), Flags: Settings{Prompt: "p", Promises: []string{"DONE"}}})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrBusy):
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// TestRaceStart runs several processes starting differently named loops in one worktree at
// the same moment: exactly one may win, the others must be refused as busy.
func TestRaceStart(t *testing.T) {
	for round := 0; round < 3; round++ {
		dir := newTestRepo(t)
		const children = 8
		at := time.Now().Add(500 * time.Millisecond).UnixNano()
		codes := make([]int, children)
		stderrs := make([]string, children)
		var wg sync.WaitGroup
		for c := 0; c < children; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				codes[c], stderrs[c] = runStartChild(t, dir, fmt.Sprintf("loop%d", c), at)
			}(c)
		}
		wg.Wait()
		won := 0
		for c, code := range codes {
			switch code {
			case 0:
				won++
			case 4:
			default:
				t.Errorf("child %d exited %d: %s", c, code, stderrs[c])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d starts succeeded in one worktree, want 1\n%s", round, won, strings.Join(stderrs, ""))
		}
		refs := strings.Fields(gitOut(t, dir, "for-each-ref", "--format=%(refname)", "refs/loop/"))
		if len(refs) != 1 {
			t.Errorf("round %d: refs/loop/ holds %v, want one loop", round, refs)
		}
		if _, err := os.Stat(startLockPath(filepath.Join(dir, ".git"))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("round %d: the start lock was left behind: %v", round, err)
		}
	}
}

func runStartChild(t *testing.T, dir, name string, at int64) (int, string) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GITLOOP_START_CHILD="+dir, "GITLOOP_START_NAME="+name, "GITLOOP_START_AT="+strconv.FormatInt(at, 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Errorf("child: %v", err)
		return -1, stderr.String()
	}
	return 0, stderr.String()
}
