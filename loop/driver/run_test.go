package driver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

func TestCallLimiterDelay(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		max   int
		calls []time.Duration // call times after t0
		now   time.Duration
		want  time.Duration
	}{
		{"no limit", 0, []time.Duration{0, time.Minute, 2 * time.Minute}, 3 * time.Minute, 0},
		{"under the limit", 3, []time.Duration{0, time.Minute}, 2 * time.Minute, 0},
		{"at the limit: until the oldest is an hour old", 2, []time.Duration{0, 10 * time.Minute}, 20 * time.Minute, 40 * time.Minute},
		{"the oldest aged out", 2, []time.Duration{0, 10 * time.Minute}, time.Hour, 0},
		{"exactly an hour later", 1, []time.Duration{0}, time.Hour, 0},
		{"a second before", 1, []time.Duration{0}, time.Hour - time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0.Add(tt.now)
			l := newCallLimiter(tt.max, func() time.Time { return now })
			for _, c := range tt.calls {
				l.calls = append(l.calls, t0.Add(c))
			}
			if got := l.delay(); got != tt.want {
				t.Errorf("delay = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCallLimiterWaitRecordsAndCancels(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	l := newCallLimiter(1, func() time.Time { return now })
	var said []string
	say := func(f string, a ...any) { said = append(said, f) }
	if err := l.wait(context.Background(), say); err != nil || len(l.calls) != 1 {
		t.Fatalf("first call: err %v, %d calls recorded", err, len(l.calls))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.wait(ctx, say); err == nil {
		t.Fatal("a second call within the hour did not wait (or ignored the cancelled context)")
	}
	if len(said) != 1 || !strings.Contains(said[0], "calls-per-hour") {
		t.Errorf("the wait was not explained: %q", said)
	}
}

func TestAgentCommand(t *testing.T) {
	tests := []struct {
		argv      []string
		wantArgs  []string
		wantStdin bool
	}{
		{[]string{"claude", "-p"}, []string{"claude", "-p"}, true},
		{[]string{"aider", "--message", "{prompt}"}, []string{"aider", "--message", "fix it"}, false},
		{[]string{"tool", "--m={prompt}!", "{prompt}"}, []string{"tool", "--m=fix it!", "fix it"}, false},
	}
	for _, tt := range tests {
		cmd, stdin := agentCommand(tt.argv, "fix it")
		if strings.Join(cmd.Args, "\x00") != strings.Join(tt.wantArgs, "\x00") || stdin != tt.wantStdin {
			t.Errorf("agentCommand(%q) = %q, stdin %v; want %q, %v", tt.argv, cmd.Args, stdin, tt.wantArgs, tt.wantStdin)
		}
	}
}

func TestStatusLineText(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	now := t0
	l := newStatusLine(io.Discard, true, "fix", &loop.Config{Gates: []gates.Gate{{Name: "a"}, {Name: "b"}}, MaxIterations: 10}, func() time.Time { return now })
	l.begin(2)
	now = t0.Add(65 * time.Second)
	l.end(&loop.StopResult{Verdict: loop.Verdict{Decision: loop.DecideContinue}, Iteration: &loop.Iteration{Gates: []loop.GateResult{{Result: gates.Result{Status: gates.StatusPass}}, {Result: gates.Result{Status: gates.StatusFail}}}}})
	want := "git-loop run fix · iteration 2/10 · 1m5s (this one 1m5s) · gates passing 1/2 · last: continue"
	if got := l.text(); got != want {
		t.Errorf("status line\n got %q\nwant %q", got, want)
	}
}

// TestStatusLineAbove: the agent's standard error scrolls above a live status line, whole
// lines at a time, and never runs into it.
func TestStatusLineAbove(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var term strings.Builder
	l := newStatusLine(&term, true, "fix", &loop.Config{MaxIterations: 3}, func() time.Time { return now })
	l.begin(1) // draws the live line
	line := "\r\x1b[2K" + l.text()
	a := l.above(&term)
	term.Reset()
	a.Write([]byte("compiling"))
	if term.Len() != 0 {
		t.Fatalf("an unfinished line was written: %q", term.String())
	}
	a.Write([]byte(" done\nwarn"))
	if want := "\r\x1b[2Kcompiling done\n" + line; term.String() != want {
		t.Fatalf("after a finished line\n got %q\nwant %q", term.String(), want)
	}
	term.Reset()
	a.flush()
	if want := "\r\x1b[2Kwarn\n" + line; term.String() != want {
		t.Fatalf("flush\n got %q\nwant %q", term.String(), want)
	}
	term.Reset()
	a.Write(bytes.Repeat([]byte("x"), maxPendingLine)) // no newline, but too long to hold
	if !strings.HasPrefix(term.String(), "\r\x1b[2Kxxx") {
		t.Fatalf("a line longer than maxPendingLine was held back")
	}

	var plain strings.Builder // no live line: written as it comes
	p := newStatusLine(&plain, false, "fix", &loop.Config{}, time.Now).above(&plain)
	p.Write([]byte("partial"))
	if plain.String() != "partial" {
		t.Fatalf("without a live line got %q", plain.String())
	}
}

// TestRunAgentLeftoverChild: an agent that leaves a child holding its stderr (a dev server
// started with &) ends when the agent does, not at the run's timeout.
func TestRunAgentLeftoverChild(t *testing.T) {
	var stderr strings.Builder
	opts := DriveOptions{Agent: []string{"sh", "-c", "sleep 30 >&2 & echo done"}, Timeout: 20 * time.Second, AgentStderr: &lockedWriter{w: &stderr}}
	began := time.Now()
	run := runAgent(context.Background(), opts, t.TempDir(), "prompt", newStatusLine(io.Discard, false, "x", &loop.Config{}, time.Now))
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("the agent's run took %v: a leftover child held it", took)
	}
	if !strings.Contains(run.output, "done") || run.exitCode != 0 {
		t.Errorf("run = %+v", run)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestLockRunOneAtATime: a second lock on the same loop is refused while the first is held,
// an empty or stale lock never lets two runs in, and release frees it.
func TestLockRunOneAtATime(t *testing.T) {
	dir := looptest.NewRepo(t)
	s, err := loop.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	release, err := lockRun(s.Repo, "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockRun(s.Repo, "x"); !errors.Is(err, loop.ErrBusy) {
		t.Fatalf("second lock: %v, want ErrBusy", err)
	}
	release()
	path := filepath.Join(s.Repo.CommonDir, "loop", "run-x.lock")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("release left the lock: %v", err)
	}
	os.WriteFile(path, []byte("999999999\n"), 0o644) // a dead holder
	release, err = lockRun(s.Repo, "x")
	if err != nil {
		t.Fatalf("a dead holder's lock was not taken over: %v", err)
	}
	release()
	os.WriteFile(path, nil, 0o644) // being written by someone (or garbage): held
	if _, err := lockRun(s.Repo, "x"); !errors.Is(err, loop.ErrBusy) {
		t.Fatalf("an empty lock: %v, want ErrBusy", err)
	}
}
