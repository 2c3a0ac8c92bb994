package gates

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/diag"
)

// Gate statuses. A command gate is read as CI reads a job: exit 0 passes and any other
// status fails, unless the gate declares statuses that mean blocked or skip (Gate.ExitCodes).
const (
	// StatusPass: the gate exited 0 (or with a status its exitCodes declares a pass).
	StatusPass = "pass"
	// StatusFail: the gate exited with any other status, or a signal killed it.
	StatusFail = "fail"
	// StatusBlocked: the gate exited with a status its exitCodes declares blocked (it cannot
	// judge the snapshot; a person must act), or it requires a figure its output lacks.
	StatusBlocked = "blocked"
	// StatusSkip: the gate exited with a status its exitCodes declares skip (not applicable),
	// or was not run in sequential mode because an earlier gate failed.
	StatusSkip = "skip"
	// StatusTimeout: the gate ran past its timeout, or the run was cancelled; its whole
	// process group was killed.
	StatusTimeout = "timeout"
	// StatusError: the gate could not be started.
	StatusError = "error"
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
	// fingerprintWindow bounds the normalised output a fingerprint covers, counted from
	// the end, so that where the tail happened to be cut does not change the fingerprint.
	fingerprintWindow = 4 << 10
)

// notRunTail is the tail of gates skipped in sequential mode after a failure.
const notRunTail = "not run: an earlier gate failed"

// Result is the outcome of running one gate. The engine records it in an iteration, beside
// the evaluator's verdict for an evaluator gate (loop.GateResult).
type Result struct {
	Name     string `json:"name"`
	Layer    int    `json:"layer"` // 1-based position in the gate list
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"` // -1 when the gate did not exit by itself (killed, not started, not run)
	// Signal names the signal that killed the gate ("SIGSEGV"), also when its shell reported
	// the death as exit status 128+N.
	Signal   string        `json:"signal,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Tail is the last bytes of combined stdout+stderr, valid UTF-8 (invalid bytes replaced).
	Tail      string `json:"tail"`
	Truncated bool   `json:"truncated,omitempty"`
	// Fingerprint identifies the failure across reruns (numbers, hashes, durations and temp
	// paths in the output do not change it); set for fail, blocked, timeout and error.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Diagnostics sums up what the output says (tests, errors, coverage), when it says any.
	Diagnostics *diag.Diagnostics `json:"diagnostics,omitempty"`
}

// Passed reports whether the gate passed.
func (r Result) Passed() bool { return r.Status == StatusPass }

// Failed reports whether the result blocks completion: anything but pass or skip.
func (r Result) Failed() bool { return r.Status != StatusPass && r.Status != StatusSkip }

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
	// time to stop it before then (a stop hook's own timeout). A gate cut
	// this way is a timeout, and its output says why; DeadlineWhy names what set it.
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

// Fingerprint identifies a gate failure so that reruns of the same failure match: the
// output is normalised (ANSI escapes stripped; temp paths, durations, UUIDs, hex strings of 7
// or more characters and digit runs replaced by placeholders; whitespace collapsed), cut to
// its last few KiB (min(4 KiB, tailBytes/2)), and hashed with the gate's name and status. The
// result is the first 12 hex digits of the SHA-1.
func Fingerprint(name, status, tail string, tailBytes int) string {
	norm := normalizeGateOutput(tail)
	window := fingerprintWindow
	if tailBytes > 0 {
		window = min(window, max(tailBytes/2, 64))
	}
	if len(norm) > window {
		norm = norm[len(norm)-window:]
	}
	h := sha1.New()
	io.WriteString(h, name)
	h.Write([]byte{0})
	io.WriteString(h, status)
	h.Write([]byte{0})
	io.WriteString(h, norm)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

var (
	// A temp directory and the (usually random) name directly under it.
	reTempPath = textutil.LazyRegexp(`(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^/\s]+/[^/\s]+/[A-Z])(?:/[^/\s:'"()\[\]]*)?` +
		`|(?i:[a-z]:\\(?:[^\\\s]+\\)*?(?:Temp|tmp)(?:\\[^\\\s:'"()\[\]]*)?)`)
	// Go-style and unit-suffixed durations: 0.12s, 350ms, 1m30.5s, 2h0m0s, 12µs.
	reDuration = textutil.LazyRegexp(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+\b`)
	reUUID     = textutil.LazyRegexp(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reHex      = textutil.LazyRegexp(`\b(?:0[xX])?[0-9a-fA-F]{7,}\b`)
)

// normalizeGateOutput rewrites output so that what varies between runs of the same failure
// (timings, counters, addresses, hashes, temp directories, colours) does not.
func normalizeGateOutput(s string) string {
	s = diag.StripANSI(s)
	if tmp := strings.TrimRight(os.TempDir(), `/\`); len(tmp) > 1 {
		s = strings.ReplaceAll(s, tmp, "/tmp")
	}
	s = reTempPath().ReplaceAllString(s, "TMP")
	s = reDuration().ReplaceAllString(s, "D")
	s = reUUID().ReplaceAllString(s, "U")
	s = reHex().ReplaceAllStringFunc(s, func(m string) string {
		digits := strings.TrimPrefix(strings.TrimPrefix(m, "0x"), "0X")
		if strings.ContainsAny(digits, "0123456789") && strings.ContainsAny(digits, "abcdefABCDEF") {
			return "H"
		}
		return m // all digits (a number, replaced next) or all letters (a word: "defaced")
	})
	// Digit runs become N and whitespace runs one space, by hand: these match everywhere,
	// and a regexp replacement costs a pass over its state per match.
	var b strings.Builder
	b.Grow(len(s))
	for _, field := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for i := 0; i < len(field); i++ {
			c := field[i]
			if c < '0' || c > '9' {
				b.WriteByte(c)
			} else if i == 0 || field[i-1] < '0' || field[i-1] > '9' {
				b.WriteByte('N')
			}
		}
	}
	return b.String()
}
