package driver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
)

// callLimiter holds agent runs to at most max in any hour. With a path, the start times are
// kept there too, so the limit holds across runs of `git loop run` (a restart after Ctrl-C
// does not reset it).
type callLimiter struct {
	max   int
	now   func() time.Time
	calls []time.Time // start times within the last hour, oldest first
	path  string
}

// persist keeps the limiter's start times in path, reading those already there.
func (l *callLimiter) persist(path string) {
	l.path = path
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Fields(string(data)) {
		if ns, err := strconv.ParseInt(line, 10, 64); err == nil {
			l.calls = append(l.calls, time.Unix(0, ns))
		}
	}
	sort.Slice(l.calls, func(i, j int) bool { return l.calls[i].Before(l.calls[j]) })
}

// save writes the start times of the last hour to the limiter's path (best effort: a lost
// record only loosens the limit).
func (l *callLimiter) save() {
	if l.path == "" {
		return
	}
	var b strings.Builder
	for _, c := range l.calls {
		fmt.Fprintln(&b, c.UnixNano())
	}
	_ = os.MkdirAll(filepath.Dir(l.path), 0o755)
	_ = os.WriteFile(l.path, []byte(b.String()), 0o644)
}

func newCallLimiter(max int, now func() time.Time) *callLimiter {
	return &callLimiter{max: max, now: now}
}

// delay is how long the next call must wait: zero when under the limit, else until the
// oldest call of the last hour is an hour old.
func (l *callLimiter) delay() time.Duration {
	if l.max <= 0 {
		return 0
	}
	now := l.now()
	for len(l.calls) > 0 && now.Sub(l.calls[0]) >= time.Hour {
		l.calls = l.calls[1:]
	}
	if len(l.calls) < l.max {
		return 0
	}
	return l.calls[0].Add(time.Hour).Sub(now)
}

// wait blocks until a call is allowed (saying so when it must wait), then records it.
func (l *callLimiter) wait(ctx context.Context, say func(string, ...any)) error {
	if d := l.delay(); d > 0 {
		say("%d agent run%s in the last hour (the --calls-per-hour limit): waiting %s, until %s",
			l.max, textutil.Plural(l.max), d.Round(time.Second), l.now().Add(d).Format("15:04:05"))
		if err := sleepCtx(ctx, d); err != nil {
			return err
		}
		l.delay() // drop the call that aged out
	}
	if l.max > 0 {
		l.calls = append(l.calls, l.now())
		l.save()
	}
	return ctx.Err()
}

// statusLine shows where a run stands: one line redrawn every second on a terminal, or a
// plain line when each iteration starts and ends.
type statusLine struct {
	w     io.Writer
	live  bool
	name  string
	gates int
	max   int
	now   func() time.Time

	mu      sync.Mutex
	iter    int
	began   time.Time // of the run
	iterAt  time.Time // of the current iteration
	passing string    // "1/2"
	last    string    // the last decision
	drawn   bool
}

func newStatusLine(w io.Writer, live bool, name string, cfg *loop.Config, now func() time.Time) *statusLine {
	return &statusLine{w: w, live: live, name: name, gates: len(cfg.Gates) + len(cfg.Judges), max: cfg.MaxIterations, now: now,
		began: now(), passing: "-", last: "-"}
}

// text is the status: loop, iteration i/N, elapsed, gates passing, last decision.
func (l *statusLine) text() string {
	limit := "∞"
	if l.max > 0 {
		limit = fmt.Sprint(l.max)
	}
	return fmt.Sprintf("git-loop run %s · iteration %d/%s · %s (this one %s) · gates passing %s · last: %s",
		l.name, l.iter, limit, l.now().Sub(l.began).Round(time.Second), l.now().Sub(l.iterAt).Round(time.Second), l.passing, l.last)
}

func (l *statusLine) begin(iter int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.iter, l.iterAt = iter, l.now()
	if !l.live {
		fmt.Fprintf(l.w, "git-loop: iteration %d: running the agent\n", iter)
		return
	}
	l.draw()
}

// end records an iteration's verdict.
func (l *statusLine) end(res *loop.StopResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pass := 0
	if res.Iteration != nil {
		for _, g := range res.Iteration.Gates {
			if g.Passed() {
				pass++
			}
		}
	}
	l.passing, l.last = fmt.Sprintf("%d/%d", pass, l.gates), res.Verdict.Decision
	if !l.live {
		fmt.Fprintf(l.w, "git-loop: iteration %d: %s, gates passing %s (%s)\n", l.iter, l.last, l.passing, textutil.FirstLine(res.Verdict.Reason))
		return
	}
	l.draw()
}

// tick redraws the live line every second until the returned stop is called.
func (l *statusLine) tick() (stop func()) {
	if !l.live {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l.mu.Lock()
				l.draw()
				l.mu.Unlock()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// draw rewrites the terminal line; l.mu is held.
func (l *statusLine) draw() {
	fmt.Fprintf(l.w, "\r\x1b[2K%s", strings.ReplaceAll(l.text(), "\n", " "))
	l.drawn = true
}

// clear erases the live line before other output.
func (l *statusLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live && l.drawn {
		fmt.Fprint(l.w, "\r\x1b[2K")
		l.drawn = false
	}
}

// maxPendingLine bounds an unfinished line of the agent's standard error held back from a
// live status line; a longer one is shown as it is.
const maxPendingLine = 64 << 10

// above passes the agent's standard error through to the status line's writer so that it
// scrolls above the live line instead of running into it: complete lines are written with
// the line cleared first and redrawn after; an unfinished line waits for its end (flush
// writes what is left when the agent ends). w is the terminal the live line is drawn on;
// without a live line, writes go straight to w.
func (l *statusLine) above(w io.Writer) *aboveStatus {
	return &aboveStatus{l: l, w: w}
}

// aboveStatus is the writer above returns.
type aboveStatus struct {
	l       *statusLine
	w       io.Writer
	pending []byte
}

func (a *aboveStatus) Write(p []byte) (int, error) {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	if !a.l.live {
		return a.w.Write(p)
	}
	a.pending = append(a.pending, p...)
	end := bytes.LastIndexByte(a.pending, '\n') + 1
	if end == 0 && len(a.pending) < maxPendingLine {
		return len(p), nil
	}
	suffix := ""
	if end == 0 { // too long to hold: shown in part, ended here so the live line cannot erase it
		end, suffix = len(a.pending), "\n"
	}
	a.show(a.pending[:end], suffix)
	a.pending = append(a.pending[:0], a.pending[end:]...)
	return len(p), nil
}

// show writes text (then suffix) above the live line; a.l.mu is held.
func (a *aboveStatus) show(text []byte, suffix string) {
	if a.l.drawn {
		fmt.Fprint(a.w, "\r\x1b[2K")
	}
	a.w.Write(text)
	fmt.Fprint(a.w, suffix)
	a.l.draw()
}

// flush writes an unfinished last line, ended, once the agent has exited.
func (a *aboveStatus) flush() {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	if len(a.pending) > 0 {
		a.show(a.pending, "\n")
		a.pending = nil
	}
}
