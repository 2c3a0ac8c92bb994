package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// historyCommands are log, show and diff: reading a loop's iterations.
func historyCommands(out io.Writer) []*cli.Command {
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
