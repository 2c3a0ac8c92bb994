package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
	"github.com/git-loop/git-loop/loop/review"
)

// goalCommand is `git loop goal CONDITION [-- AGENT…]`: the one-line way in for people who
// know Claude Code's /goal. It starts a loop whose exit is CONDITION judged met by the
// configured evaluator (plus any gates from .gitloop): in the active agent's session, as
// start does, or, with an agent command after --, driven as run does.
func goalCommand(out, errOut io.Writer) *cli.Command {
	return &cli.Command{
		Name: "goal", Usage: "start a loop that ends when the evaluator judges CONDITION met (and the gates pass)", Category: groupDrive,
		ArgsUsage: "CONDITION [-- AGENT [ARG…]]",
		Description: "CONDITION is the end state in plain words, as with Claude Code's /goal; it is the task too unless -p gives\n" +
			"one. The evaluator is loop.evaluator (e.g. `git config loop.evaluator 'claude -p --model haiku'`); gates\n" +
			"come from .gitloop and --gate, and run first. Without an agent command the loop is bound to this agent\n" +
			"session, as with start; with `-- AGENT…` it is driven as with run (same exit codes).",
		Flags: append(append(startFlags(), nameFlag(),
			&cli.BoolFlag{Name: "json", Usage: "print JSON"}), driveFlags()...),
		Action: func(c *cli.Context) error {
			agent, _ := c.Context.Value(agentArgsKey{}).([]string)
			opts, err := parseGoal(c)
			if err != nil {
				return err
			}
			if len(agent) > 0 {
				drive, err := driveOptions(c, "", agent, errOut)
				if err != nil {
					return err
				}
				drive.Start = &opts
				return withStore(func(s *loop.Store) error {
					_, err := driver.Drive(s, c.Context, drive)
					return err
				})
			}
			if set := setFlags(c, driveFlags()); len(set) > 0 {
				return usageError{msg: fmt.Sprintf("%s only apply when goal drives an agent (after --, e.g. `git loop goal 'COND' -- claude -p`)", set)}
			}
			return withStore(func(s *loop.Store) error {
				st, err := startAndPrint(out, s, opts, c.Bool("json"))
				if err != nil || st == nil {
					return err
				}
				return printNextStep(out, st)
			})
		},
	}
}

// parseGoal turns goal's condition and flags into start options: the condition is the
// first judge, and the task unless -p or --prompt-file gives one.
func parseGoal(c *cli.Context) (loop.StartOptions, error) {
	if c.NArg() != 1 || c.Args().First() == "" {
		return loop.StartOptions{}, usageError{msg: "goal takes one CONDITION, in quotes: `git loop goal 'every test passes and the README documents --judge'`"}
	}
	cond := c.Args().First()
	opts := loop.StartOptions{Name: c.String("name")}
	var err error
	if opts.Flags, opts.Session, err = startSettings(c); err != nil {
		return opts, err
	}
	f := &opts.Flags
	f.Judges, f.Goal = append([]string{cond}, f.Judges...), true
	if c.IsSet("prompt-file") {
		if f.Prompt != "" {
			return opts, usageError{msg: "give the prompt with -p or --prompt-file, not both"}
		}
		if f.Prompt, err = readFlagFile(c, "prompt-file"); err != nil {
			return opts, err
		}
	}
	if f.Prompt == "" {
		f.Prompt = cond
	}
	return opts, nil
}

// startAndPrint starts a loop and prints it as start does: its state (or JSON), then its shape.
// The state is nil after JSON, which says everything.
func startAndPrint(out io.Writer, s *loop.Store, opts loop.StartOptions, asJSON bool) (*loop.State, error) {
	st, err := s.Start(opts)
	if err != nil {
		return nil, err
	}
	if err := review.PrintState(out, st, asJSON, "started"); err != nil || asJSON {
		return nil, err
	}
	return st, printShapeOf(out, s, st.Name)
}

// printNextStep writes, after a new loop's state, who will work on it: the agents whose
// git-loop hooks are installed and would run in its worktree, or how to install one, and
// the driver (hooks.DoctorReport.NextStep).
func printNextStep(out io.Writer, st *loop.State) error {
	_, err := fmt.Fprint(out, hooks.Doctor(st.Worktree).NextStep())
	return err
}
