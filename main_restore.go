package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// restoreCommand is `git loop restore [NAME] ITER`.
func restoreCommand(out, errOut io.Writer) *cli.Command {
	return &cli.Command{
		Name: "restore", Usage: "put the worktree back to an iteration's snapshot (the current worktree is recorded first)", ArgsUsage: "[NAME] ITER", Category: groupReview,
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			name, iters, err := nameAndIterations(c, 1)
			if err != nil {
				return err
			}
			if iters[0] == review.Latest {
				return usageError{msg: "restore needs the iteration to go back to, e.g. `git loop restore 3`; see `git loop log`"}
			}
			return withRecent(name, func(s *loop.Store, name string) error {
				res, err := s.Restore(c.Context, name, iters[0])
				if err != nil {
					return err
				}
				if res.NotesErr != nil {
					fmt.Fprintf(errOut, "git-loop: warning: %v\n", res.NotesErr)
				}
				if c.Bool("json") {
					return textutil.WriteJSON(out, res)
				}
				if len(res.Submodules) > 0 {
					fmt.Fprintf(out, "submodules left as they are (as git checkout leaves them): %s; `git submodule update` brings them to the recorded commits\n", strings.Join(res.Submodules, ", "))
				}
				fmt.Fprintf(out, "restored the worktree of loop %s to iteration %d: %d files written, %d removed\n", name, res.Restored, res.Written, res.Deleted)
				fmt.Fprintf(out, "the worktree as it was is iteration %d: `git loop restore %s %d` brings it back\n", res.Saved, name, res.Saved)
				return nil
			})
		},
	}
}
