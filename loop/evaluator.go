package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/judge"
)

// Verdicts of an evaluator gate, as recorded in JudgeInfo.Verdict.
const (
	VerdictMet        = "met"
	VerdictUnmet      = "unmet"
	VerdictImpossible = "impossible"
	VerdictInvalid    = "invalid" // its output held no valid verdict
	VerdictFailed     = "failed"  // it exited with an error, timed out or did not start
	VerdictNotRun     = "not run" // a command gate failed, so the evaluator was not asked
	VerdictBudget     = "budget"  // the loop's evaluator budget is spent
)

// Evaluator runner limits.
const (
	// evaluatorOutputBytes is how much of an evaluator's standard output is read for its
	// verdict (the end of it), and evaluatorKeptBytes how much is kept in the record.
	evaluatorOutputBytes = 256 << 10
	evaluatorKeptBytes   = 2 << 10
	// maxVerdictMemos bounds the verdicts a loop's state remembers for reuse.
	maxVerdictMemos = 32
	// diffstatBytes bounds the diffstat read for an evaluator's input; the patch is read up
	// to judge.MaxInput.
	diffstatBytes = 16 << 10
)

// JudgeInfo is what an evaluator gate's result records beyond a gate's.
type JudgeInfo struct {
	Condition string `json:"condition"`
	Evaluator string `json:"evaluator"`
	// Verdict is met, unmet, impossible, invalid, failed, not run or budget; Reason is the
	// evaluator's words (or why there is no verdict), which the agent is given.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// InputBytes is the size of what the evaluator read (at most judge.MaxInput);
	// InputCut is set when a part of it was cut to fit.
	InputBytes int  `json:"input_bytes,omitempty"`
	InputCut   bool `json:"input_cut,omitempty"`
	// CostUSD is what the run cost, when the evaluator's output reports it.
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Output is the end of what the evaluator printed.
	Output string `json:"output,omitempty"`
	// Key identifies what was judged: the evaluator, the condition, the snapshot tree and the
	// agent's message. Ran is set when the evaluator ran for this result (it counts against
	// the budget); CachedFrom, when the verdict is that of an earlier iteration with the
	// same key.
	Key        string `json:"key,omitempty"`
	Ran        bool   `json:"ran,omitempty"`
	CachedFrom int    `json:"cached_from,omitempty"`
}

// VerdictMemo says which iteration recorded the verdict for a key (see JudgeInfo.Key).
type VerdictMemo struct {
	Key       string `json:"key"`
	Iteration int    `json:"iteration"`
}

// judgeRun is what runJudges needs to judge one snapshot.
type judgeRun struct {
	name         string // the loop
	cfg          *Config
	st           *State
	tree         gitstore.Hash
	message      string
	messageKnown bool
	gates        []GateResult // the command gates' results
	opts         gates.RunOptions
	// budget is set when runs count against the loop's evaluator budget (a stop, not check).
	budget bool
}

// runJudges judges the loop's conditions on a snapshot, one result per judge in order, with
// layers after the command gates'. The evaluator runs only when every command gate passes
// (else each judge is "not run", which never completes a loop); a verdict recorded for the
// same evaluator, condition, tree and message is reused, not asked again; past the loop's
// evaluator budget a judge is blocked, which pauses the loop. Runs go in parallel, each with
// the evaluator's timeout, within the stop's deadline.
func (s *Store) runJudges(ctx context.Context, r judgeRun) []GateResult {
	cfg := r.cfg
	if len(cfg.Judges) == 0 || cfg.Evaluator == nil {
		return nil
	}
	ev := cfg.Evaluator
	results := make([]GateResult, len(cfg.Judges))
	var todo []int
	runs, cost := r.st.EvaluatorRuns, r.st.EvaluatorCost
	for i, j := range cfg.Judges {
		info := &JudgeInfo{Condition: j.Condition, Evaluator: ev.Command,
			Key: verdictKey(ev.Command, j.Condition, r.tree.String(), r.message)}
		res := GateResult{Result: gates.Result{Name: j.Name, Layer: len(cfg.Gates) + i + 1, ExitCode: -1}, Judge: info}
		switch {
		case !Verified(r.gates):
			res.Status, info.Verdict = gates.StatusSkip, VerdictNotRun
			info.Reason = "not run: the command gates did not pass (the evaluator runs only once every gate passes)"
		case s.cachedVerdict(r.name, r.st, &res):
		case r.budget && runs >= ev.budget(r.st):
			res.Status, info.Verdict = gates.StatusBlocked, VerdictBudget
			info.Reason = fmt.Sprintf("the evaluator budget is spent: %d of %d runs; the condition was never judged met, so the loop pauses rather than complete; "+
				"to judge again, `git loop resume %s --evaluator-budget %d`", runs, ev.budget(r.st), r.name, 2*ev.budget(r.st))
		case r.budget && ev.CostBudget > 0 && cost >= ev.CostBudget:
			res.Status, info.Verdict = gates.StatusBlocked, VerdictBudget
			info.Reason = fmt.Sprintf("the evaluator cost budget is spent: $%.4f of $%.2f; the condition was never judged met, so the loop pauses rather than complete; "+
				"to judge again, raise loop.evaluatorCostBudget and start a new loop", cost, ev.CostBudget)
		default:
			runs++
			todo = append(todo, i)
		}
		if res.Judge.Verdict != VerdictMet && res.Tail == "" {
			res.Tail = judgeTail(res.Judge)
		}
		results[i] = res
	}
	if len(todo) == 0 {
		return results
	}
	in, err := s.judgeInput(ctx, r)
	var wg sync.WaitGroup
	for _, i := range todo {
		if err != nil { // the input could not be built: no evaluator is asked without it
			results[i].Status, results[i].Judge.Verdict = gates.StatusError, VerdictFailed
			results[i].Judge.Reason = fmt.Sprintf("the evaluator was not run: %v", err)
			results[i].Tail = judgeTail(results[i].Judge)
			continue
		}
		one := in // each run reads its own condition: the runs share nothing but results
		one.Condition = cfg.Judges[i].Condition
		wg.Go(func() {
			input, cut := judge.Build(one)
			results[i].Judge.InputCut = cut
			runEvaluator(ctx, ev, input, &results[i], r.opts)
		})
	}
	wg.Wait()
	return results
}

// verdictKey identifies what an evaluator judges.
func verdictKey(evaluator, condition, tree, message string) string {
	h := sha256.New()
	for _, s := range []string{evaluator, condition, tree, message} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// cachedVerdict fills res with the verdict an earlier iteration recorded for res's key, and
// reports whether there was one.
func (s *Store) cachedVerdict(name string, st *State, res *GateResult) bool {
	n := -1
	for _, m := range st.Verdicts {
		if m.Key == res.Judge.Key {
			n = m.Iteration
		}
	}
	if n < 0 {
		return false
	}
	h, err := s.OpenHistory(name)
	if err != nil {
		return false
	}
	rec, err := h.Get(n)
	if err != nil {
		return false
	}
	for _, g := range rec.Gates {
		if g.Judge != nil && g.Judge.Key == res.Judge.Key && g.Judge.Ran && g.Judge.judged() {
			layer := res.Layer
			*res = g
			res.Layer, res.Duration = layer, 0
			info := *g.Judge
			info.Ran, info.CachedFrom, info.CostUSD = false, n, 0
			res.Judge = &info
			return true
		}
	}
	return false
}

// judged reports whether the evaluator gave a verdict (met, unmet or impossible), the only
// results reused for the same key: a run that failed, timed out, was cut by the stop's
// deadline or printed no valid verdict said nothing about the work, so the next stop asks
// again (it still counts against the budget).
func (j *JudgeInfo) judged() bool {
	return j.Verdict == VerdictMet || j.Verdict == VerdictUnmet || j.Verdict == VerdictImpossible
}

// rememberVerdicts records in next where this iteration's verdicts are, and counts the
// evaluator's runs and cost against its budget.
func rememberVerdicts(next *State, results []GateResult) {
	for _, g := range results {
		if g.Judge == nil || !g.Judge.Ran {
			continue
		}
		next.EvaluatorRuns++
		next.EvaluatorCost += g.Judge.CostUSD
		if g.Judge.judged() {
			next.Verdicts = append(next.Verdicts, VerdictMemo{Key: g.Judge.Key, Iteration: next.Iteration})
		}
	}
	if len(next.Verdicts) > maxVerdictMemos {
		next.Verdicts = append([]VerdictMemo(nil), next.Verdicts[len(next.Verdicts)-maxVerdictMemos:]...)
	}
}

// judgeTail is an evaluator gate's output as a gate's: the condition and the verdict's reason.
func judgeTail(info *JudgeInfo) string {
	return fmt.Sprintf("condition: %s\nevaluator (%s): %s\n", info.Condition, info.Verdict, info.Reason)
}

// judgeInput gathers what every judge of a snapshot reads but the condition: the task, the
// message, the gates and the diff against the loop's base. git diff runs within the stop's
// deadline, as the gates do: a diff too large to finish in time is killed, and no evaluator
// is asked, rather than the agent killing the hook with nothing recorded.
func (s *Store) judgeInput(ctx context.Context, r judgeRun) (judge.Input, error) {
	if !r.opts.Deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, r.opts.Deadline)
		defer cancel()
	}
	in, err := s.diffInput(ctx, r)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("the stop's deadline passed while git diff read the patch (%s)", r.opts.DeadlineWhy)
	}
	return in, err
}

// diffInput is judgeInput's work.
func (s *Store) diffInput(ctx context.Context, r judgeRun) (judge.Input, error) {
	in := judge.Input{Task: r.cfg.Prompt, Message: r.message, MessageKnown: r.messageKnown}
	for _, g := range r.gates {
		sum := summarySuffix(g.Diagnostics)
		sum = strings.TrimSuffix(strings.TrimPrefix(sum, "  ("), ")")
		in.Gates = append(in.Gates, judge.GateLine{Name: g.Name, Status: g.Status, Summary: sum})
	}
	base := emptyTreeHash
	in.Base = "the empty tree (the repository had no commit when the loop started)"
	if r.cfg.Base != "" {
		base = r.cfg.Base
		in.Base = "commit " + textutil.Short(base) + ", where the loop started"
	}
	var err error
	if in.Diffstat, in.DiffstatCut, err = s.gitDiff(ctx, diffstatBytes, "--stat=100", base, r.tree.String()); err != nil {
		return in, err
	}
	in.Patch, in.PatchCut, err = s.gitDiff(ctx, judge.MaxInput, "--patch", base, r.tree.String())
	return in, err
}

// emptyTreeHash is git's empty tree, for a diff from nothing.
const emptyTreeHash = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// gitDiff runs git diff MODE between two trees (or commits) and returns the first n bytes of
// its output and how many it left out.
func (s *Store) gitDiff(ctx context.Context, n int, mode, a, b string) (string, int64, error) {
	out := &headBuffer{max: n}
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "--git-dir", s.Repo.GitDir, "diff", "--no-ext-diff", "--no-color", "--no-textconv", mode, a, b)
	cmd.Stdout, cmd.Stderr, cmd.Env = out, &stderr, gitstore.CleanGitEnv()
	if err := cmd.Run(); err != nil {
		return "", 0, fmt.Errorf("git diff for the evaluator: %v: %s", err, textutil.FirstLine(stderr.String()))
	}
	return out.b.String(), out.cut, nil
}

// headBuffer keeps the first max bytes written to it and counts the rest.
type headBuffer struct {
	b   strings.Builder
	max int
	cut int64
}

func (h *headBuffer) Write(p []byte) (int, error) {
	room := h.max - h.b.Len()
	if room >= len(p) {
		h.b.Write(p)
		return len(p), nil
	}
	if room > 0 {
		h.b.Write(p[:room])
	}
	h.cut += int64(len(p) - max(room, 0))
	return len(p), nil
}

// runEvaluator runs the evaluator on input and fills res with its verdict: met only on a
// valid `"met": true` from an evaluator that exited 0; anything else is unmet, impossible
// (blocked: the loop pauses), or failed, with the reason the agent is given.
func runEvaluator(ctx context.Context, ev *Evaluator, input string, res *GateResult, opts gates.RunOptions) {
	info := res.Judge
	info.InputBytes = len(input)
	defer func() {
		res.Tail = judgeTail(info)
		if res.Failed() {
			res.Fingerprint = gates.Fingerprint(res.Name, res.Status, info.Verdict+" "+info.Reason, 0)
		}
	}()
	fail := func(status, verdict, reason string) {
		res.Status, info.Verdict, info.Reason = status, verdict, reason
	}
	own := ev.timeout()
	timeout, cut := opts.Timeout(own)
	if ctx.Err() != nil || timeout <= 0 {
		fail(gates.StatusTimeout, VerdictFailed, "not run: the stop's deadline had passed ("+opts.DeadlineWhy+")")
		return
	}
	cmd := gates.Command(ev.Command)
	cmd.Dir, cmd.Stdin = opts.Dir, strings.NewReader(input)
	// An evaluator that is itself a hooked agent (claude -p in this worktree) must not have
	// its own stops judged by this loop: as under `git loop run`, git-loop's hook stays out
	// of its way.
	cmd.Env = append(append(os.Environ(), opts.Env...), "GIT_LOOP_JUDGE="+res.Name, DriverEnv+"=1")
	stdout, stderr := gates.NewTailBuffer(evaluatorOutputBytes), gates.NewTailBuffer(evaluatorKeptBytes)
	run, err := gates.RunInGroup(ctx, cmd, timeout, stdout, stderr)
	res.Duration = run.Duration
	if err != nil {
		fail(gates.StatusError, VerdictFailed, fmt.Sprintf("the evaluator `%s` could not be started: %v; check loop.evaluator", ev.Command, err))
		return
	}
	info.Ran = true
	out := stdout.Text()
	info.Output = bounded(out, evaluatorKeptBytes)
	if run.Stopped != "" {
		why := run.Stopped
		if cut && ctx.Err() == nil {
			why = fmt.Sprintf("was cut off after %v, before its own timeout of %v (%s)", timeout.Round(time.Second), own, opts.DeadlineWhy)
		}
		fail(gates.StatusTimeout, VerdictFailed, fmt.Sprintf("the evaluator `%s` %s; its processes were killed (loop.evaluatorTimeout sets its timeout)", ev.Command, why))
		return
	}
	v, perr := judge.Parse(out)
	info.CostUSD = v.CostUSD
	res.ExitCode, res.Signal = gates.ExitStatus(run.WaitErr)
	switch {
	case res.ExitCode != 0: // any status but 0 is a failed run, as for a gate
		said := lastLine(stderr.Text())
		if said == "" {
			said = lastLine(out)
		}
		fail(gates.StatusFail, VerdictFailed, fmt.Sprintf("the evaluator `%s` %s: %s", ev.Command, endedHow(res.ExitCode, res.Signal), textutil.OrDefaultString(said, "(it printed nothing)")))
	case perr != nil:
		reason := perr.Error()
		if last := lastLine(out); last != "" {
			reason += "; it ended with: " + last
		} else {
			reason += "; it printed nothing"
		}
		fail(gates.StatusFail, VerdictInvalid, reason)
	case v.Impossible:
		fail(gates.StatusBlocked, VerdictImpossible, textutil.OrDefaultString(v.Reason, "the evaluator gave no reason"))
	case v.Met:
		res.Status, info.Verdict, info.Reason = gates.StatusPass, VerdictMet, v.Reason
	default:
		fail(gates.StatusFail, VerdictUnmet, textutil.OrDefaultString(v.Reason, "the evaluator gave no reason"))
	}
}

// JudgeSnapshot judges loop name's conditions on the snapshot of iteration rec, checked out
// in dir, with the message the agent gave then; the command gates are taken as passed (a
// bisect by judges asks only the evaluator). A verdict recorded for the same tree and
// message is reused. Nothing is recorded, and runs do not count against the budget. A
// fetched loop's evaluator runs with Trust only.
func (s *Store) JudgeSnapshot(ctx context.Context, name string, rec *Iteration, dir string) ([]GateResult, error) {
	st, cfg, err := s.judgesConfig(name)
	if err != nil {
		return nil, err
	}
	tree, err := gitstore.ParseHash(rec.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: iteration %d has no snapshot tree", ErrCorrupt, rec.Number)
	}
	return s.runJudges(ctx, judgeRun{name: name, cfg: cfg, st: st, tree: tree, message: rec.Message, messageKnown: rec.Signals != nil,
		opts: gates.RunOptions{Dir: dir}}), nil
}

// CanJudge refuses, before any snapshot is checked out, what JudgeSnapshot would refuse for
// every iteration: a fetched loop without Trust, a loop without judges.
func (s *Store) CanJudge(name string) error {
	_, _, err := s.judgesConfig(name)
	return err
}

// judgesConfig reads loop name's state and configuration to run its evaluator.
func (s *Store) judgesConfig(name string) (*State, *Config, error) {
	st, cfg, err := s.trustedConfig(name, "bisect --judge")
	if err == nil && len(cfg.Judges) == 0 {
		err = fmt.Errorf("%w: loop %q has no judge to bisect by; give the test command after --", ErrConfig, name)
	}
	return st, cfg, err
}
