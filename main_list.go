package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// listCommand is `git loop list [--all]`: the repository's loops, with --all the ended ones
// and those fetched from remotes too.
func listCommand(out, errOut io.Writer) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "list active and paused loops", Category: groupDrive, Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include completed and cancelled loops"}, jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{msg: "list takes no arguments; see `git loop help list`"}
			}
			return withStore(func(s *loop.Store) error {
				states, skipped, err := s.List(c.Bool("all"))
				if err != nil {
					return err
				}
				if c.Bool("all") { // others' loops, fetched with `git loop fetch`
					fetched, more, err := s.ListFetched()
					if err != nil {
						return err
					}
					states, skipped = append(states, fetched...), append(skipped, more...)
				}
				warnSkipped(errOut, skipped)
				return review.PrintList(out, s.WithProblems(states), c.Bool("json"))
			})
		},
	}
}

// warnSkipped prints one warning line per ref under refs/loop/ that List left out.
func warnSkipped(w io.Writer, skipped []string) {
	for _, why := range skipped {
		fmt.Fprintf(w, "git-loop: warning: %s; ignoring it\n", why)
	}
}
