package driver

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
	"unicode/utf8"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// Driver mode (git loop run): the loop drives a headless agent command, one fresh process
// (a fresh context) per iteration, like the original Ralph loop. Each run's output is the
// agent's last message; then snapshot, gates and decision go exactly as for a hook's stop
// (Store.Stop), so a driven agent gets the same guarantees.

// Driver defaults.
const (
	// DefaultAgentTimeout bounds one agent run when RunOptions sets none.
	DefaultAgentTimeout = 30 * time.Minute
	// agentOutputBytes is how much of an agent's output is kept as its message.
	agentOutputBytes = 64 << 10
	// promptPlaceholder in an agent argument is replaced by the prompt, which then does not
	// go to the agent's standard input.
	promptPlaceholder = "{prompt}"
)

var (
	// ErrRunPaused: the driven loop was paused (a limit, a breaker, a person) or cancelled.
	ErrRunPaused = errors.New("loop paused")
)

// DriveOptions configure one `git loop run`.
type DriveOptions struct {
	Name  string             // the loop; "" for the worktree's active loop (or a new one with Start)
	Start *loop.StartOptions // start a new loop first
	Agent []string           // the agent command and its arguments
	// Timeout bounds each agent run (DefaultAgentTimeout when 0); the agent's process group
	// is killed when it passes, and the iteration is judged on what was done.
	Timeout      time.Duration
	CallsPerHour int           // at most this many agent runs in any hour (0: no limit)
	Cooldown     time.Duration // pause between iterations
	Sequential   bool          // run gates one after another
	Status       io.Writer     // progress for the person (standard error)
	Live         bool          // Status is a terminal: one status line, redrawn
	AgentStderr  io.Writer     // where the agent's standard error goes
}

// DriveResult is how a run ended.
type DriveResult struct {
	Name       string
	Decision   string // the last decision: complete, pause, cancelled; "interrupted"
	Reason     string
	Iterations int
}

// agentRun is the outcome of one agent run.
type agentRun struct {
	output   string
	binary   bool  // the output was not text (kept with invalid bytes replaced)
	startErr error // the agent could not be started
	exitCode int
	stopped  string // why it was killed ("timed out after 30m0s"); "" when it ended itself
	duration time.Duration
}

// Drive runs the agent until the loop completes, pauses or is cancelled, or ctx ends
// (ErrInterrupted, after pausing the loop). A paused or cancelled end is ErrRunPaused.
func Drive(s *loop.Store, ctx context.Context, opts DriveOptions) (*DriveResult, error) {
	if len(opts.Agent) == 0 {
		return nil, fmt.Errorf("%w: run needs an agent command after --, e.g. `git loop run -- claude -p`", loop.ErrConfig)
	}
	name, err := driveTarget(s, opts)
	if err != nil {
		return nil, err
	}
	cfg, st, err := activeConfig(s, name)
	if err != nil {
		return nil, err
	}
	wt, err := s.WorktreeOf(name, st)
	if err != nil {
		return nil, err
	}
	release, err := lockRun(s.Repo, name)
	if err != nil {
		return nil, err
	}
	defer release()
	d := newDriver(s, name, cfg, opts)
	prompt := cfg.Prompt
	if st.Iteration > 0 {
		prompt = resumedPrompt(cfg, st)
	}
	for {
		if err := d.rate.wait(ctx, d.say); err != nil {
			return d.interrupted(st.Iteration)
		}
		d.status.begin(st.Iteration + 1)
		run := runAgent(ctx, opts, wt.WorkTree, prompt, d.status)
		if ctx.Err() != nil {
			return d.interrupted(st.Iteration)
		}
		d.reportRun(run)
		res, err := s.Stop(ctx, name, loop.StopInput{Session: st.Session, Kind: "run", Message: run.output, MessageKnown: true, Sequential: opts.Sequential})
		if ctx.Err() != nil {
			return d.interrupted(st.Iteration)
		}
		if err != nil {
			if pst, perr := s.PauseForError(name, err); perr != nil {
				d.say("the loop could not be paused either (%v): it is still active, and the next run judges again", perr)
			} else if pst.ResumesItself() {
				// a hook's next stop would resume it by itself; a run starts only on an active loop
				d.say("the loop is paused (%s); once that has passed, go on with `git loop resume %s` and run again", pst.Transient, name)
			}
			return nil, err
		}
		if res.Iteration == nil { // the loop stopped running meanwhile (paused or cancelled)
			return d.ended(res.State, res.Verdict.Reason)
		}
		st = res.State
		if res.NotesErr != nil {
			d.say("warning: %v", res.NotesErr)
		}
		d.status.end(res)
		switch res.Verdict.Decision {
		case loop.DecideContinue:
			prompt = res.Verdict.ForAgent
			if opts.Cooldown > 0 {
				d.say("cooling down for %s (--cooldown)", opts.Cooldown)
			}
			if err := sleepCtx(ctx, opts.Cooldown); err != nil {
				return d.interrupted(st.Iteration)
			}
		case loop.DecideComplete:
			d.say("%s", res.Verdict.ForUser)
			return &DriveResult{Name: name, Decision: loop.DecideComplete, Reason: res.Verdict.Reason, Iterations: st.Iteration}, nil
		default:
			return d.ended(st, res.Verdict.Reason)
		}
	}
}

// driveTarget starts the loop when asked, else names the worktree's active loop.
func driveTarget(s *loop.Store, opts DriveOptions) (string, error) {
	if opts.Start != nil {
		st, err := s.Start(*opts.Start)
		if err != nil {
			return "", err
		}
		return st.Name, nil
	}
	if loop.IsFetched(opts.Name) {
		return s.Adopt(opts.Name, 0)
	}
	return s.Resolve(opts.Name)
}

// activeConfig reads a loop that is active, or says how to make it so.
func activeConfig(s *loop.Store, name string) (*loop.Config, *loop.State, error) {
	_, st, err := s.ReadState(name)
	if err != nil {
		return nil, nil, err
	}
	if st.Status != loop.StatusActive {
		how := fmt.Sprintf("resume it first: `%s`", loop.ResumeCommand(st))
		if st.Ended() {
			how = "start a new one: `git loop run -p PROMPT … -- AGENT…`"
		}
		if !st.Ended() {
			return nil, nil, fmt.Errorf("%w: loop %s is %s (%s); %s", loop.ErrNotActive, name, st.Status, st.Reason, how)
		}
		return nil, nil, fmt.Errorf("%w: loop %s is %s (%s); %s", loop.ErrEnded, name, st.Status, st.Reason, how)
	}
	cfg, err := s.Config(name, st)
	if err != nil {
		return nil, nil, err
	}
	return cfg, st, nil
}

// resumedPrompt is the first prompt of a run that picks up a loop already under way.
func resumedPrompt(cfg *loop.Config, st *loop.State) string {
	return fmt.Sprintf("%s\n\n---\ngit-loop: this loop is at iteration %s; the work so far is in the worktree. Carry on.\n",
		strings.TrimSpace(cfg.Prompt), loop.FormatIteration(st.Iteration, st.MaxIterations))
}

// driver holds one run's state between iterations.
type driver struct {
	s      *loop.Store
	name   string
	opts   DriveOptions
	rate   *callLimiter
	status *statusLine
}

func newDriver(s *loop.Store, name string, cfg *loop.Config, opts DriveOptions) *driver {
	if opts.Status == nil {
		opts.Status = io.Discard
	}
	rate := newCallLimiter(opts.CallsPerHour, s.Now)
	if opts.CallsPerHour > 0 {
		rate.persist(filepath.Join(s.Repo.CommonDir, "loop", "run-calls-"+name))
	}
	return &driver{s: s, name: name, opts: opts, rate: rate, status: newStatusLine(opts.Status, opts.Live, name, cfg, s.Now)}
}

func (d *driver) say(format string, args ...any) {
	d.status.clear()
	fmt.Fprintf(d.opts.Status, "git-loop: "+format+"\n", args...)
}

// reportRun tells the person how the agent's run ended when it did not end well.
func (d *driver) reportRun(run agentRun) {
	switch {
	case run.startErr != nil:
		d.say("the agent could not be started: %v; check the command after --", run.startErr)
		return
	case run.stopped != "":
		d.say("the agent %s; its processes were killed and the iteration is judged on what it did", run.stopped)
	case run.exitCode != 0:
		d.say("the agent exited with status %d; the iteration is judged on what it did", run.exitCode)
	}
	switch {
	case strings.TrimSpace(run.output) == "":
		d.say("the agent printed nothing: no message, so no promise; the gates still run")
	case run.binary:
		d.say("the agent printed output that is not text; it is kept as its message with the invalid bytes replaced")
	}
}

// interrupted pauses the loop after Ctrl-C and reports ErrInterrupted.
func (d *driver) interrupted(iter int) (*DriveResult, error) {
	d.status.clear()
	reason := fmt.Sprintf("run interrupted by the user; continue with `git loop resume %s` and `git loop run %s -- AGENT…`", d.name, d.name)
	if err := d.s.PauseWith(d.name, reason); err != nil {
		d.say("could not pause the loop: %v", err)
	}
	return &DriveResult{Name: d.name, Decision: "interrupted", Reason: reason, Iterations: iter},
		fmt.Errorf("%w; the loop is paused: continue with `git loop resume %s`, then `git loop run %s -- AGENT…`", loop.ErrInterrupted, d.name, d.name)
}

// ended reports a loop that stopped running without completing.
func (d *driver) ended(st *loop.State, reason string) (*DriveResult, error) {
	if st != nil && st.Reason != "" {
		reason = st.Reason
	}
	d.say("loop %s stopped: %s", d.name, reason)
	res := &DriveResult{Name: d.name, Decision: loop.DecidePause, Reason: reason}
	if st != nil {
		res.Iterations, res.Decision = st.Iteration, st.Status
	}
	return res, ErrRunPaused
}

// agentCommand builds the agent's command: the prompt replaces promptPlaceholder in its
// arguments, or goes to its standard input when no argument has it.
func agentCommand(argv []string, prompt string) (cmd *exec.Cmd, promptOnStdin bool) {
	args := make([]string, len(argv))
	promptOnStdin = true
	for i, a := range argv {
		if strings.Contains(a, promptPlaceholder) {
			a, promptOnStdin = strings.ReplaceAll(a, promptPlaceholder, prompt), false
		}
		args[i] = a
	}
	return exec.Command(args[0], args[1:]...), promptOnStdin
}

// runAgent runs the agent once in its own process group with the prompt; its standard
// output, bounded, is the message.
func runAgent(ctx context.Context, opts DriveOptions, dir, prompt string, status *statusLine) agentRun {
	cmd, onStdin := agentCommand(opts.Agent, prompt)
	cmd.Dir = dir
	if onStdin {
		cmd.Stdin = strings.NewReader(prompt)
	}
	cmd.Env = append(os.Environ(), loop.DriverEnv+"=1")
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultAgentTimeout
	}
	var stderr io.Writer = io.Discard
	if opts.AgentStderr != nil {
		passed := status.above(opts.AgentStderr) // lines scroll above a live status line
		defer passed.flush()
		stderr = passed
	}
	out := gates.NewTailBuffer(agentOutputBytes)
	stopTicker := status.tick()
	run, err := gates.RunInGroup(ctx, cmd, timeout, out, stderr)
	stopTicker()
	res := agentRun{output: out.Text(), stopped: run.Stopped, duration: run.Duration, binary: !utf8.Valid(out.Bytes())}
	if err != nil {
		res.exitCode, res.startErr = -1, err
		res.output = fmt.Sprintf("[git-loop] the agent could not be started: %v", err)
		return res
	}
	res.exitCode, _ = gates.ExitStatus(run.WaitErr)
	return res
}

// sleepCtx waits d, or less when ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
