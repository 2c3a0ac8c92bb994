package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// showCommand is `git loop show [NAME] [ITER]`: one iteration of a loop's history.
func showCommand(out io.Writer) *cli.Command {
	return &cli.Command{
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
	}
}
