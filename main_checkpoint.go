package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// checkpointCommand is `git loop checkpoint [NAME]`: the worktree now, recorded as the
// loop's next iteration.
func checkpointCommand(out, errOut io.Writer) *cli.Command {
	return &cli.Command{
		Name: "checkpoint", Usage: "record a snapshot of the worktree now as the loop's next iteration", ArgsUsage: "[NAME]", Category: groupDrive,
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return withLoop(c, func(s *loop.Store, name string) error {
				st, rec, err := s.Checkpoint(name)
				if err != nil {
					return err
				}
				if rec.NotesErr != nil {
					fmt.Fprintf(errOut, "git-loop: warning: %v\n", rec.NotesErr)
				}
				return review.PrintCheckpoint(out, st, rec, c.Bool("json"))
			})
		},
	}
}
