package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// logCommand is `git loop log [NAME] [-n N]`: one line per iteration of a loop's history.
func logCommand(out io.Writer) *cli.Command {
	return &cli.Command{
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
	}
}
