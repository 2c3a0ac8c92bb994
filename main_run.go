package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
)

// runCommand is `git loop run [NAME] [start flags] -- AGENT…`: driver mode.
func runCommand(out, errOut io.Writer) *cli.Command {
	return &cli.Command{
		Name: "run", Usage: "driver mode: run a headless agent command once per iteration until the loop ends", Category: groupDrive,
		ArgsUsage: "[NAME] -- AGENT [ARG…]",
		Description: "The prompt goes to the agent's standard input, or replaces {prompt} in its arguments.\n" +
			"With -p or --prompt-file a new loop is started (start's flags apply); without, the worktree's\n" +
			"active loop (or NAME) is driven.\n\n" +
			"Exit: 0 complete, 1 error, 2 usage, 6 the loop paused (a limit, a breaker, a person) or\n" +
			"cancelled, 130 interrupted (the loop is paused).",
		Flags: append(append(startFlags(), driveFlags()...), trustFlag),
		Action: func(c *cli.Context) error {
			agent := agentArgs(c)
			if len(agent) == 0 {
				return missingCommand("run")
			}
			opts, err := parseRun(c, agent, errOut)
			if err != nil {
				return err
			}
			return withStore(func(s *loop.Store) error {
				s.Trust = c.Bool("trust")
				_, err := driver.Drive(s, c.Context, opts)
				return err
			})
		},
	}
}

// parseRun turns run's flags into loop.DriveOptions; start flags (a prompt) start a loop.
func parseRun(c *cli.Context, agent []string, errOut io.Writer) (driver.DriveOptions, error) {
	name, err := oneName(c)
	if err != nil {
		return driver.DriveOptions{}, err
	}
	opts, err := driveOptions(c, name, agent, errOut)
	if err != nil {
		return opts, err
	}
	if c.IsSet("prompt") || c.IsSet("prompt-file") {
		start, err := parseStart(c)
		if err != nil {
			return opts, err
		}
		opts.Start = &start
	} else if set := setFlags(c, startFlags()); len(set) > 0 {
		return opts, usageError{msg: fmt.Sprintf("%s only apply when run starts a loop (with -p or --prompt-file); to raise a running loop's limit, `git loop resume --max-iterations N`", set)}
	}
	return opts, nil
}
