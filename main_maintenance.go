package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
)

// maintenanceCommand is `git loop maintenance`: the roll-up an iteration starts in the
// background when loose objects pile up, run now and waited for.
func maintenanceCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name:     loop.MaintenanceArg,
		Usage:    "pack loose objects and merge small packs, as iterations do in the background",
		Category: groupPlumbing,
		Flags:    []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return withStore(func(s *loop.Store) error {
				res, err := s.RollUp(c.Context)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return textutil.WriteJSON(out, res)
				}
				return loop.PrintRollUp(out, res)
			})
		},
	}
}
