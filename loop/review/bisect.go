package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// BisectOptions configure Bisect.
type BisectOptions struct {
	Good, Bad int      // iterations known good and bad; Latest picks the first and the newest
	Command   []string // run in the scratch worktree: 0 good, 125 untestable, 1-127 bad, else abort
	Timeout   time.Duration
	Progress  io.Writer // one line per iteration tested
	// Judge bisects by the loop's evaluator gates instead of Command: an iteration whose
	// conditions the evaluator judges met is good, one it judges unmet is bad, and one it
	// cannot judge (failed, timed out, impossible) is untestable.
	Judge bool
}

// BisectResult is the first iteration at which the command fails.
type BisectResult struct {
	Loop       string `json:"loop"`
	FirstBad   int    `json:"first_bad"`
	LastGood   int    `json:"last_good"`
	Tested     int    `json:"tested"`
	Output     string `json:"output"` // the end of the command's output at FirstBad
	Untestable []int  `json:"untestable,omitempty"`
	// Ambiguous lists the untestable iterations between LastGood and FirstBad: the first
	// bad one may be any of them or FirstBad (as git bisect says "could be any of").
	Ambiguous []int `json:"ambiguous,omitempty"`
}

// Bisect errors.
var (
	// ErrBisectRange: nothing to search: the good iteration fails, the bad one passes, or
	// there are not two snapshots from the good one to the bad one. An --good or --bad that
	// names an iteration the loop does not have is ErrNoIteration instead.
	ErrBisectRange = errors.New("nothing to bisect")
	// ErrBisectAborted: the command exited 128 or above, or a signal killed it, which
	// git bisect run takes as "stop bisecting" rather than as good or bad.
	ErrBisectAborted = errors.New("bisect aborted")
)

// errBisectInterrupted: Ctrl-C during a bisect (the scratch worktree is still removed).
var errBisectInterrupted = fmt.Errorf("%w; bisect stopped, its scratch worktree removed", loop.ErrInterrupted)

// untestable is the exit code that marks an iteration as one the command cannot judge, as
// with git bisect run.
const untestable = 125

// Bisect finds the first iteration of loop name at which opts.Command fails, by binary search
// between a good and a bad iteration. Each snapshot is checked out in a scratch worktree
// (git worktree add --detach, removed afterwards even when ctx is cancelled), so the user's
// worktree, index and branches are never touched.
func Bisect(s *loop.Store, ctx context.Context, name string, opts BisectOptions) (*BisectResult, error) {
	if opts.Judge {
		if err := s.CanJudge(name); err != nil {
			return nil, err
		}
	}
	h, err := s.OpenHistory(name)
	if err != nil {
		return nil, err
	}
	iters, err := bisectRange(h, opts.Good, opts.Bad)
	if err != nil {
		return nil, err
	}
	scratch, cleanup, err := scratchWorktree(s, ctx, iters[0].Snapshot)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	b := &bisector{ctx: ctx, dir: scratch, opts: opts, git: s.Repo.GitDir, results: map[string]testRun{}, s: s, name: name}
	res := &BisectResult{Loop: name}
	first, last := iters[0], iters[len(iters)-1]
	if r := b.test(first); r.outcome != outcomePass {
		if ctx.Err() != nil {
			return nil, errBisectInterrupted
		}
		if r.outcome == outcomeAbort {
			return nil, b.abortError(first, r)
		}
		return nil, b.rangeError(r, fmt.Sprintf("the command does not pass at the good iteration %d", first.Number), "--good")
	}
	lastRun := b.test(last)
	if lastRun.outcome != outcomeFail {
		if ctx.Err() != nil {
			return nil, errBisectInterrupted
		}
		if lastRun.outcome == outcomeAbort {
			return nil, b.abortError(last, lastRun)
		}
		return nil, b.rangeError(lastRun, fmt.Sprintf("the command does not fail at the bad iteration %d", last.Number), "--bad")
	}
	lo, hi := 0, len(iters)-1 // iters[lo] passes, iters[hi] fails
	bad := lastRun
	for hi-lo > 1 {
		if ctx.Err() != nil {
			return nil, errBisectInterrupted
		}
		mid := b.pick(iters, lo, hi)
		if mid < 0 {
			break // only untestable iterations left between lo and hi
		}
		r := b.test(iters[mid])
		if ctx.Err() != nil {
			return nil, errBisectInterrupted
		}
		switch r.outcome {
		case outcomePass:
			lo = mid
		case outcomeFail:
			hi, bad = mid, r
		case outcomeAbort:
			return nil, b.abortError(iters[mid], r)
		}
	}
	res.FirstBad, res.LastGood, res.Tested, res.Output = iters[hi].Number, iters[lo].Number, b.tested, bad.output
	res.Untestable = b.skipped
	for _, rec := range iters[lo+1 : hi] {
		if r, ok := b.results[rec.Tree]; ok && r.outcome == outcomeSkip {
			res.Ambiguous = append(res.Ambiguous, rec.Number)
		}
	}
	return res, nil
}

// bisectRange is the iterations from good to bad (oldest first), with a snapshot each.
func bisectRange(h *loop.History, good, bad int) ([]*loop.Iteration, error) {
	for _, end := range []struct {
		flag string
		n    int
	}{{"--good", good}, {"--bad", bad}} {
		if end.n != Latest && (end.n < 0 || end.n > h.State.Iteration) {
			return nil, fmt.Errorf("%w: %s %d: loop %s has iterations 0-%d; see `git loop log %s`",
				loop.ErrNoIteration, end.flag, end.n, h.Name, h.State.Iteration, h.Name)
		}
	}
	var iters []*loop.Iteration
	err := h.Each(func(rec *loop.Iteration) error {
		if rec.Tree != "" {
			iters = append([]*loop.Iteration{rec}, iters...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if good == Latest && len(iters) > 0 {
		good = iters[0].Number
	}
	if bad == Latest && len(iters) > 0 {
		bad = iters[len(iters)-1].Number
	}
	var out []*loop.Iteration
	for _, rec := range iters {
		if rec.Number >= good && rec.Number <= bad {
			out = append(out, rec)
		}
	}
	if len(out) < 2 || out[0].Number != good || out[len(out)-1].Number != bad {
		return nil, fmt.Errorf("%w: loop %s needs a good iteration before a bad one (good %d, bad %d, iterations 0-%d); see `git loop log %s`",
			ErrBisectRange, h.Name, good, bad, h.State.Iteration, h.Name)
	}
	return out, nil
}

type outcome int

const (
	outcomePass outcome = iota
	outcomeFail
	outcomeSkip
	outcomeAbort // the command exited 128 or above, or was killed: git bisect run stops
)

type testRun struct {
	outcome  outcome
	exitCode int
	signal   string // the signal that killed the command, if one did
	output   string
}

type bisector struct {
	s       *loop.Store
	name    string
	ctx     context.Context
	dir     string
	git     string
	opts    BisectOptions
	results map[string]testRun // by snapshot tree: equal trees test alike
	tested  int
	skipped []int
}

// pick is the iteration nearest the middle of (lo, hi) not known to be untestable, or -1.
func (b *bisector) pick(iters []*loop.Iteration, lo, hi int) int {
	mid := (lo + hi) / 2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi {
				if r, ok := b.results[iters[i].Tree]; !ok || r.outcome != outcomeSkip {
					return i
				}
			}
		}
	}
	return -1
}

// test runs the command on rec's snapshot (once per distinct tree).
func (b *bisector) test(rec *loop.Iteration) testRun {
	if r, ok := b.results[rec.Tree]; ok {
		return r
	}
	r := b.run(rec)
	b.results[rec.Tree] = r
	b.tested++
	word := map[outcome]string{outcomePass: "good", outcomeFail: "bad", outcomeSkip: "untestable", outcomeAbort: "abort"}[r.outcome]
	if r.outcome == outcomeSkip {
		b.skipped = append(b.skipped, rec.Number)
	}
	if b.opts.Progress != nil {
		fmt.Fprintf(b.opts.Progress, "iteration %d: %s (exit %d)\n", rec.Number, word, r.exitCode)
	}
	return r
}

func (b *bisector) run(rec *loop.Iteration) testRun {
	checkout := exec.CommandContext(b.ctx, "git", "checkout", "-q", "--detach", "-f", rec.Snapshot)
	clean := exec.CommandContext(b.ctx, "git", "clean", "-q", "-ffdx")
	for _, cmd := range []*exec.Cmd{checkout, clean} {
		cmd.Dir, cmd.Env = b.dir, gitstore.CleanGitEnv() // never the user's worktree, whatever GIT_DIR says
		if out, err := cmd.CombinedOutput(); err != nil {
			return testRun{outcome: outcomeSkip, exitCode: -1, output: fmt.Sprintf("cannot check out iteration %d: %v: %s", rec.Number, err, out)}
		}
	}
	if b.opts.Judge {
		return b.judge(rec)
	}
	cmd := exec.Command(b.opts.Command[0], b.opts.Command[1:]...)
	cmd.Dir = b.dir
	cmd.Env = append(gitstore.CleanGitEnv(), fmt.Sprintf("GIT_LOOP_ITERATION=%d", rec.Number))
	out := gates.NewTailBuffer(gates.DefaultTailBytes)
	timeout := b.opts.Timeout
	if timeout <= 0 {
		timeout = gates.DefaultTimeout
	}
	run, err := gates.RunInGroup(b.ctx, cmd, timeout, out, nil)
	if err != nil {
		return testRun{outcome: outcomeSkip, exitCode: -1, output: fmt.Sprintf("cannot run %s: %v", b.opts.Command[0], err)}
	}
	code, signal := gates.ExitStatus(run.WaitErr)
	r := testRun{exitCode: code, signal: signal, output: out.Text()}
	switch {
	case run.Stopped != "":
		r.outcome = outcomeSkip
		r.output += "\n[git-loop] " + run.Stopped
	default:
		r.outcome = bisectOutcome(code)
	}
	return r
}

// bisectOutcome reads the command's exit code as git bisect run does: 0 good, 125
// untestable, 1 to 127 bad, anything else (128 and above; -1, killed by a signal) abort.
func bisectOutcome(code int) outcome {
	switch {
	case code == 0:
		return outcomePass
	case code == untestable:
		return outcomeSkip
	case code >= 1 && code <= 127:
		return outcomeFail
	}
	return outcomeAbort
}

// judge asks the loop's evaluator about rec's snapshot: every condition met is good, one
// judged unmet is bad, anything else (no valid verdict, a failed or timed-out run,
// impossible) untestable, as bisect's help says.
func (b *bisector) judge(rec *loop.Iteration) testRun {
	results, err := b.s.JudgeSnapshot(b.ctx, b.name, rec, b.dir)
	if err != nil {
		return testRun{outcome: outcomeSkip, exitCode: -1, output: err.Error()}
	}
	r := testRun{outcome: outcomePass}
	for _, g := range results {
		r.output += g.Tail
		switch {
		case g.Passed():
		case g.Judge != nil && g.Judge.Verdict == loop.VerdictUnmet:
			if r.outcome == outcomePass {
				r.outcome, r.exitCode = outcomeFail, 1
			}
		default:
			r.outcome, r.exitCode = outcomeSkip, untestable
		}
	}
	return r
}

// rangeError explains an end of the range that does not behave as named: its output's end
// goes to the progress writer, the error is one line.
func (b *bisector) rangeError(r testRun, what, flag string) error {
	if tail := strings.TrimRight(textutil.LastLines(r.output, 10), "\n"); b.opts.Progress != nil && strings.TrimSpace(tail) != "" {
		for _, line := range strings.Split(tail, "\n") {
			fmt.Fprintf(b.opts.Progress, "  | %s\n", line)
		}
	}
	return fmt.Errorf("%w: %s (exit %d); choose another with %s", ErrBisectRange, what, r.exitCode, flag)
}

// abortError stops a bisect whose command exited 128 or above, or was killed, at rec: git
// bisect run's sign that the command itself broke, which says nothing of the snapshot.
func (b *bisector) abortError(rec *loop.Iteration, r testRun) error {
	if tail := strings.TrimRight(textutil.LastLines(r.output, 10), "\n"); b.opts.Progress != nil && strings.TrimSpace(tail) != "" {
		for _, line := range strings.Split(tail, "\n") {
			fmt.Fprintf(b.opts.Progress, "  | %s\n", line)
		}
	}
	how := fmt.Sprintf("exited %d", r.exitCode)
	if r.signal != "" {
		how = "was killed by " + r.signal
		if r.exitCode >= 0 {
			how = fmt.Sprintf("exited %d (%s)", r.exitCode, r.signal)
		}
	}
	return fmt.Errorf("%w: the command %s at iteration %d; as with git bisect run, 128 and above stop the search (exit 125 marks an iteration untestable, 1-127 bad)",
		ErrBisectAborted, how, rec.Number)
}

// scratchWorktree adds a worktree detached at commit in a temporary directory and returns a
// cleanup that removes it (and git's record of it), to be deferred: it runs even after ctx
// ends.
func scratchWorktree(s *loop.Store, ctx context.Context, commit string) (string, func(), error) {
	parent, err := os.MkdirTemp("", "git-loop-bisect-")
	if err != nil {
		return "", nil, fmt.Errorf("bisect: scratch directory: %w", err)
	}
	dir := filepath.Join(parent, "worktree")
	add := exec.CommandContext(ctx, "git", "--git-dir", s.Repo.GitDir, "worktree", "add", "-q", "--detach", "--no-checkout", dir, commit)
	add.Env = gitstore.CleanGitEnv()
	if out, err := add.CombinedOutput(); err != nil {
		os.RemoveAll(parent)
		return "", nil, fmt.Errorf("bisect: git worktree add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	cleanup := func() {
		rm := exec.Command("git", "--git-dir", s.Repo.GitDir, "worktree", "remove", "--force", dir)
		rm.Env = gitstore.CleanGitEnv()
		rm.Run()
		os.RemoveAll(parent)
		prune := exec.Command("git", "--git-dir", s.Repo.GitDir, "worktree", "prune")
		prune.Env = gitstore.CleanGitEnv()
		prune.Run()
	}
	return dir, cleanup, nil
}
