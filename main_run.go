package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
)

// agentArgsKey carries run's agent command (everything after --) past the flag parser,
// which would otherwise read the agent's own flags as git-loop's.
type agentArgsKey struct{}

// splitAgent takes the command off a `run` or `bisect` command line: args up to "--" go to
// the CLI parser, the rest is the agent (or bisect's test). ok is false when there is no "--".
func splitAgent(args []string) (cliArgs, agent []string, ok bool) {
	if len(args) < 2 || (args[1] != "run" && args[1] != "bisect" && args[1] != "goal") {
		return args, nil, true
	}
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, args[1] == "goal" // goal without an agent runs in the agent's session
}

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
			agent, _ := c.Context.Value(agentArgsKey{}).([]string)
			if len(agent) == 0 {
				return usageError{msg: "run needs the agent command after --, e.g. `git loop run -p 'fix the tests' -- claude -p`"}
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

// driveFlags are the flags of driving an agent, which run and goal take.
func driveFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "timeout", Usage: "kill an agent run after `DURATION`", Value: driver.DefaultAgentTimeout},
		&cli.IntFlag{Name: "calls-per-hour", Usage: "run the agent at most `N` times in any hour (0: no limit)"},
		&cli.DurationFlag{Name: "cooldown", Usage: "wait `DURATION` between iterations"},
		&cli.BoolFlag{Name: "sequential", Usage: "run gates one after another, stopping at the first failure"},
	}
}

// driveOptions turns the drive flags into driver.DriveOptions for loop name and agent.
func driveOptions(c *cli.Context, name string, agent []string, errOut io.Writer) (driver.DriveOptions, error) {
	opts := driver.DriveOptions{Name: name, Agent: agent, Timeout: c.Duration("timeout"), CallsPerHour: c.Int("calls-per-hour"),
		Cooldown: c.Duration("cooldown"), Sequential: c.Bool("sequential"), Status: errOut, Live: isTerminal(errOut), AgentStderr: errOut}
	switch {
	case c.Int("calls-per-hour") < 0:
		return opts, usageError{msg: "--calls-per-hour must be 0 (no limit) or more"}
	case c.Duration("timeout") <= 0:
		return opts, usageError{msg: "--timeout must be more than 0, e.g. --timeout 30m"}
	case c.Duration("cooldown") < 0:
		return opts, usageError{msg: "--cooldown must be 0 or more, e.g. --cooldown 30s"}
	}
	return opts, nil
}

// setFlags names the flags of list given on the command line: "--gate, --promise".
func setFlags(c *cli.Context, list []cli.Flag) string {
	var set []string
	for _, f := range list {
		name := f.Names()[0]
		if c.IsSet(name) {
			set = append(set, "--"+name)
		}
	}
	return strings.Join(set, ", ")
}

// isTerminal reports whether w is a terminal (a character device), where run redraws one
// status line instead of printing plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// withAgentArgs puts run's agent command in ctx.
func withAgentArgs(ctx context.Context, agent []string) context.Context {
	return context.WithValue(ctx, agentArgsKey{}, agent)
}
