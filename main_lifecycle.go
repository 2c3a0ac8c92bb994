package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// pause, resume and cancel, one file: each is a loop.Transition of the loop's status, parsed
// and printed by one constructor (transitionCommand); resume alone takes flags beyond --json.

// pauseCommand is `git loop pause [NAME]`.
func pauseCommand(out io.Writer) *cli.Command {
	return transitionCommand(out, loop.Pause, "pause a loop: the hook lets the agent stop until it is resumed")
}

// resumeCommand is `git loop resume [NAME]`, which may also raise a limit the loop paused at,
// answer a colleague's completion checkpoint, hand the loop to a fresh session or go on from
// an earlier iteration.
func resumeCommand(out io.Writer) *cli.Command {
	return transitionCommand(out, loop.Resume, "resume a paused loop")
}

// cancelCommand is `git loop cancel [NAME]`.
func cancelCommand(out io.Writer) *cli.Command {
	return transitionCommand(out, loop.Cancel, "cancel a loop; its history stays on refs/loop/NAME")
}

// transitionCommand is the command of transition t.
func transitionCommand(out io.Writer, t loop.Transition, usage string) *cli.Command {
	flags := []cli.Flag{jsonFlag}
	if t == loop.Resume {
		flags = append(flags, &cli.IntFlag{Name: "max-iterations", Usage: "raise the iteration limit to `N` (for a loop paused at its limit)"},
			maxDurationFlag, tokenBudgetFlag, evaluatorBudgetFlag, notDoneFlag, freshFlag, fromFlag, trustFlag)
	}
	return &cli.Command{
		Name: string(t), Usage: usage, ArgsUsage: "[NAME]", Flags: flags, Category: groupDrive,
		Action: func(c *cli.Context) error {
			name, err := oneName(c)
			if err != nil {
				return err
			}
			return withStore(func(s *loop.Store) error {
				name, err := s.ResolveTransition(name, t)
				if err != nil {
					return err
				}
				st, err := resume(s, name, t, c)
				if err != nil {
					return err
				}
				return review.PrintState(out, st, c.Bool("json"), transitionVerb(t, st))
			})
		},
	}
}

// resume applies transition t, where a resume may answer a colleague's completion
// checkpoint with --not-done or hand the loop to a fresh session with --fresh.
func resume(s *loop.Store, name string, t loop.Transition, c *cli.Context) (*loop.State, error) {
	max := c.Int("max-iterations")
	if t == loop.Resume && !loop.IsFetched(name) && (c.IsSet("max-duration") || c.IsSet("token-budget") || c.IsSet("evaluator-budget")) {
		raise := loop.Raise{MaxDuration: c.String("max-duration"), TokenBudget: c.Int64("token-budget"), EvaluatorBudget: c.Int("evaluator-budget")}
		if _, err := s.RaiseLimits(name, raise); err != nil {
			return nil, err
		}
	}
	switch {
	case t == loop.Resume && loop.IsFetched(name): // continue a fetched loop here
		s.Trust = c.Bool("trust")
		return s.ResumeFetched(name, max)
	case t != loop.Resume:
	case c.Bool("not-done") && c.Bool("fresh"):
		return nil, usageError{msg: "resume takes --not-done or --fresh, not both"}
	case c.IsSet("from") && (c.Bool("not-done") || c.Bool("fresh")):
		return nil, usageError{msg: "resume takes --from, or --not-done or --fresh, not both"}
	case c.IsSet("from"):
		if c.Int("from") < 0 {
			return nil, usageError{msg: "--from takes an iteration number; see `git loop log`"}
		}
		st, res, err := s.ResumeFrom(c.Context, name, c.Int("from"), max)
		if res != nil {
			fmt.Fprintf(c.App.ErrWriter, "restored the worktree to iteration %d (%d files written, %d removed); the worktree as it was is iteration %d\n",
				res.Restored, res.Written, res.Deleted, res.Saved)
		}
		return st, err
	case c.Bool("not-done"):
		return s.ResumeNotDone(name, max)
	case c.Bool("fresh"):
		return s.ResumeFresh(name, max)
	}
	return s.SetStatusContext(c.Context, name, t, max)
}

// Flags of resume (raising limits, answering checkpoints, fresh sessions).
var (
	maxDurationFlag = &cli.StringFlag{Name: "max-duration", Usage: "raise the wall-clock limit to `D` (for a loop paused at it), e.g. 4h"}
	tokenBudgetFlag = &cli.Int64Flag{Name: "token-budget", Usage: "raise the token budget to `N` (for a loop paused at it)"}
	// evaluatorBudgetFlag raises the number of evaluator runs a loop with judges may make.
	evaluatorBudgetFlag = &cli.IntFlag{Name: "evaluator-budget", Usage: "raise the evaluator budget to `N` runs in all (for a loop paused at it)"}
	notDoneFlag         = &cli.BoolFlag{Name: "not-done", Usage: "at the completion checkpoint: send the agent back instead of completing"}
	freshFlag           = &cli.BoolFlag{Name: "fresh", Usage: "release the loop from its agent session, for a new session with a fresh context"}
	fromFlag            = &cli.IntFlag{Name: "from", Usage: "continue from iteration `ITER`: its snapshot is restored first (the current worktree is recorded)"}
)

// transitionVerb heads a transition's output: a resume that confirmed a colleague's
// completion says so.
func transitionVerb(t loop.Transition, st *loop.State) string {
	if t == loop.Resume && st.Status == loop.StatusCompleted {
		return "completed (confirmed)"
	}
	return map[loop.Transition]string{loop.Pause: "paused", loop.Resume: "resumed", loop.Cancel: "cancelled"}[t]
}
