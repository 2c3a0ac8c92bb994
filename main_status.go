package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// statusCommand is `git loop status [NAME]`: a loop's state and configuration.
func statusCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "status", Usage: "show a loop's state", ArgsUsage: "[NAME]", Flags: []cli.Flag{jsonFlag}, Category: groupDrive,
		Action: func(c *cli.Context) error {
			name, err := oneName(c)
			if err != nil {
				return err
			}
			// A reading command: with no name, the active loop or else the last one that
			// ran here, as log, show, diff and report take.
			return withRecent(name, func(s *loop.Store, name string) error {
				st, cfg, err := s.Status(name)
				if err != nil {
					return err
				}
				return review.PrintStatus(out, st, cfg, c.Bool("json"))
			})
		},
	}
}
