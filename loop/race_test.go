package loop

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// TestMain lets the test binary act as a checkpointing child process for TestRaceCheckpoint.
func TestMain(m *testing.M) {
	if dir := os.Getenv("GITLOOP_RACE_CHILD"); dir != "" {
		os.Exit(raceChild(dir))
	}
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

func newTestRepo(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, ".gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o666)
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o666)
	return dir
}
