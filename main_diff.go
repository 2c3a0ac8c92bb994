package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// diffCommand is `git loop diff [NAME] [A [B]]`: the rework between two iterations.
func diffCommand(out io.Writer) *cli.Command {
	return &cli.Command{
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
	}
}
