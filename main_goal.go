package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
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
		Flags: append(append(startFlags(), nameFlag(), jsonFlag), driveFlags()...),
		Action: func(c *cli.Context) error {
			agent := agentArgs(c)
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
