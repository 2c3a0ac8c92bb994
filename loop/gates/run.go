package gates

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// Gate runner defaults and limits.
const (
	// DefaultTimeout applies to gates without a timeout when RunOptions sets none.
	DefaultTimeout = 10 * time.Minute
	// DefaultTailBytes is how much of a gate's output is kept when RunOptions sets none.
	DefaultTailBytes = 8 << 10
	// KillGrace is how long a timed-out gate has between the polite termination signal
	// and the kill.
	KillGrace = time.Second
	// PipeGrace bounds the wait for the output pipe to close once the gate's main process
	// has exited and its process group was killed (a process that left the group may still
	// hold the pipe).
	PipeGrace = 500 * time.Millisecond
)

// notRunTail is the tail of gates skipped in sequential mode after a failure.
const notRunTail = "not run: an earlier gate failed"

// RunOptions controls Run.
type RunOptions struct {
	// Dir is the directory gates run in (the worktree).
	Dir string
	// Sequential runs gates one after another in order and stops at the first gate that
	// neither passes nor skips; by default all gates run at once.
	Sequential bool
	// DefaultTimeout applies to gates that set no valid timeout; 0 means 10 minutes.
	DefaultTimeout time.Duration
	// TailBytes is how much output is kept per gate; 0 means 8 KiB.
	TailBytes int
	// Env is added to the environment of every gate (after os.Environ, so it wins).
	Env []string
	// Deadline, when set, is when every gate must be done: a gate's timeout is cut to leave
	// time to stop it before then (a stop hook's own timeout). A gate cut this way is a
	// timeout, and its output says why; DeadlineWhy names what set it.
	Deadline    time.Time
	DeadlineWhy string
}

// Run runs gates in opts.Dir and returns one result per gate, in gate order.
//
// Each gate runs `sh -c RUN` (on Windows `cmd /S /C RUN`) with stdin empty and the
// environment os.Environ()+opts.Env+GIT_LOOP_GATE=<name>. Exit status 0 is pass and any
// other fail, unless the gate's exitCodes declares what a status means. A gate past its timeout, or running when ctx
// is cancelled, gets status timeout: its whole process group (Windows: job object) is sent
// SIGTERM and, a second later, SIGKILL. When a gate's main process exits, whatever it left
// running in its process group is killed too, so a background child holding the output pipe
// cannot keep Run waiting. Output is kept as a bounded tail.
func Run(ctx context.Context, gates []Gate, opts RunOptions) []Result {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.TailBytes <= 0 {
		opts.TailBytes = DefaultTailBytes
	}
	results := make([]Result, len(gates))
	if opts.Sequential {
		stopped := false
		for i, g := range gates {
			if stopped {
				results[i] = Result{Name: g.Name, Layer: i + 1, Status: StatusSkip, ExitCode: -1, Tail: notRunTail}
				continue
			}
			results[i] = runJudgedGate(ctx, g, i+1, opts)
			stopped = results[i].Failed()
		}
		return results
	}
	var wg sync.WaitGroup
	for i, g := range gates {
		wg.Go(func() { results[i] = runJudgedGate(ctx, g, i+1, opts) })
	}
	wg.Wait()
	return results
}

// runGate runs one gate to completion, timeout or cancellation.
func runGate(ctx context.Context, g Gate, layer int, opts RunOptions) (res Result) {
	res = Result{Name: g.Name, Layer: layer, ExitCode: -1}
	tail := NewTailBuffer(opts.TailBytes)
	defer func() {
		res.Tail = tail.Text()
		res.Truncated = tail.Truncated()
		switch res.Status {
		case StatusFail, StatusBlocked, StatusTimeout, StatusError:
			res.Fingerprint = Fingerprint(res.Name, res.Status, res.Tail, opts.TailBytes)
		}
	}()
	if ctx.Err() != nil {
		res.Status = StatusTimeout
		fmt.Fprintf(tail, "not run: %v", context.Cause(ctx))
		return res
	}
	own := g.TimeoutOr(opts.DefaultTimeout)
	timeout, cut := opts.Timeout(own)
	if timeout <= 0 {
		res.Status = StatusTimeout
		fmt.Fprintf(tail, "not run: the stop's deadline had passed (%s)", opts.DeadlineWhy)
		return res
	}

	cmd := Command(g.Run)
	cmd.Dir = opts.Dir
	cmd.Env = append(append(os.Environ(), opts.Env...), "GIT_LOOP_GATE="+g.Name)
	run, err := RunInGroup(ctx, cmd, timeout, tail, nil)
	res.Duration = run.Duration
	if err != nil {
		res.Status = StatusError
		fmt.Fprintf(tail, "cannot start gate: %v", err)
		return res
	}
	waitErr, why := run.WaitErr, run.Stopped
	if why != "" {
		res.Status = StatusTimeout
		if cut && ctx.Err() == nil {
			why = fmt.Sprintf("was cut off after %v, before its own timeout of %v, to leave the stop time to record it (%s)", timeout.Round(time.Second), own, opts.DeadlineWhy)
		}
		fmt.Fprintf(tail, "\n[git-loop] gate %q %s; its processes were killed\n", g.Name, why)
		return res
	}
	rule, ruleErr := parseExitCodes(g.ExitCodes)
	if ruleErr != nil { // refused at start; a hand-edited loop.json falls back to CI's rule
		fmt.Fprintf(tail, "\n[git-loop] gate %q: exitCodes %q ignored (%v): 0 passes, anything else fails\n", g.Name, g.ExitCodes, ruleErr)
	}
	res.ExitCode, res.Signal = ExitStatus(waitErr)
	res.Status = StatusFail
	switch {
	case res.ExitCode >= 0:
		res.Status = rule.status(res.ExitCode)
	case res.Signal != "":
		fmt.Fprintf(tail, "\n[git-loop] gate %q was killed by %s\n", g.Name, res.Signal)
	default:
		fmt.Fprintf(tail, "\n[git-loop] gate %q ended abnormally: %v\n", g.Name, waitErr)
	}
	return res
}

// Timeout is the time a command with timeout own may run under opts: own, or less when the
// stop's deadline comes first, leaving the time to stop it (the polite signal's grace, the
// pipe's) before then (cut is set). At or below 0 the deadline has passed.
func (opts RunOptions) Timeout(own time.Duration) (timeout time.Duration, cut bool) {
	if opts.Deadline.IsZero() {
		return own, false
	}
	left := time.Until(opts.Deadline) - KillGrace - PipeGrace
	if left < own {
		return left, true
	}
	return own, false
}
