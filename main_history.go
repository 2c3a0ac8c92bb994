package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// historyCommands are log, show and diff: reading a loop's iterations.
func historyCommands(out io.Writer) []*cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	return []*cli.Command{
		{
			Name: "log", Usage: "one line per iteration: time, duration, decision, gate matrix, files changed", ArgsUsage: "[NAME]", Category: groupReview,
			Flags: []cli.Flag{jsonFlag, &cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show at most `N` iterations, newest first"}},
			Action: func(c *cli.Context) error {
				name, err := oneName(c)
				if err != nil {
					return err
				}
				if n := c.Int("max-count"); c.IsSet("max-count") && n <= 0 {
					return usageError{msg: fmt.Sprintf("log -n: give a positive number of iterations (got %d); leave -n out to show them all", n)}
				}
				return withHistory(name, func(h *loop.History) error {
					return review.PrintLog(out, h, review.LogOptions{JSON: c.Bool("json"), Color: useColor(out), Limit: c.Int("max-count")})
				})
			},
		},
		{
			Name: "show", Usage: "an iteration's decision, gates with their output, the agent's message and the diffstat", ArgsUsage: "[NAME] [ITER]", Category: groupReview,
			Flags: []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				name, iters, err := nameAndIterations(c, 1)
				if err != nil {
					return err
				}
				return withHistory(name, func(h *loop.History) error {
					return review.PrintShow(out, h, iters[0], review.ShowOptions{JSON: c.Bool("json"), Color: useColor(out)})
				})
			},
		},
		{
			Name: "diff", Usage: "the rework between two iterations: diffstat, patch, and how the agent's message changed", ArgsUsage: "[NAME] [A [B]]", Category: groupReview,
			Description: "With no iteration, the latest against the one before; with A, A against the latest.\n" +
				"A loop with only its start (iteration 0) has nothing to compare yet: diff says so.",
			Flags: []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				name, iters, err := nameAndIterations(c, 2)
				if err != nil {
					return err
				}
				from, to := iters[0], iters[1]
				if from != review.Latest && to == review.Latest && c.NArg() > 0 {
					to = review.Latest // A alone: A against the latest
				}
				return withHistory(name, func(h *loop.History) error {
					return review.PrintDiff(c.Context, out, h, from, to, review.ShowOptions{JSON: c.Bool("json"), Color: useColor(out)})
				})
			},
		},
	}
}

// nameAndIterations splits [NAME] [ITER…]: numbers are iterations (at most max), a first
// argument that is not a number is the loop's name. Missing iterations are loop.Latest.
func nameAndIterations(c *cli.Context, max int) (string, []int, error) {
	args := c.Args().Slice()
	name := ""
	if len(args) > 0 {
		if _, err := strconv.Atoi(args[0]); err != nil || len(args) > max {
			name, args = args[0], args[1:]
		}
	}
	if len(args) > max {
		return "", nil, usageError{msg: fmt.Sprintf("%s takes a loop name and at most %d iteration numbers", c.Command.Name, max)}
	}
	iters := make([]int, max)
	for i := range iters {
		iters[i] = review.Latest
	}
	for i, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return "", nil, usageError{msg: fmt.Sprintf("%q is not an iteration number; see `git loop log` for them", a)}
		}
		iters[i] = n
	}
	return name, iters, nil
}

// withHistory opens the history of loop name (or this worktree's active or latest loop).
func withHistory(name string, fn func(*loop.History) error) error {
	return withRecent(name, func(s *loop.Store, name string) error {
		h, err := s.OpenHistory(name)
		if err != nil {
			return err
		}
		return fn(h)
	})
}

// withRecent runs fn on loop name, or, for a reading command given none, the loop active in
// this worktree or else the last one that ran here (loop.Store.ResolveRecent).
func withRecent(name string, fn func(s *loop.Store, name string) error) error {
	return withStore(func(s *loop.Store) error {
		name, err := s.ResolveRecent(name)
		if err != nil {
			return err
		}
		return fn(s, name)
	})
}

// useColor: colour only on a terminal, and never with NO_COLOR set (no-color.org).
func useColor(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	return isTerminal(w)
}
