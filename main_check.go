package main

import (
	"errors"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// errChecksWeakened makes `check` exit 1 when the gates pass on checks weaker than at the
// loop's start, which the next stop would not complete on.
var errChecksWeakened = errors.New("the gates pass, but the checks are weaker than at the loop's start (see above; `git loop approve` allows it)")

// errGatesFail makes `check` exit 1 when a gate does not pass, or every gate skipped; the
// gates' output says why.
var errGatesFail = errors.New("not every gate passes")

// checkCommand is `git loop check [NAME]`: the loop's gates on the worktree now, recording
// nothing; it exits 1 when they would not let the loop complete.
func checkCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "check", Usage: "run the loop's gates on the worktree now; record nothing", ArgsUsage: "[NAME]", Category: groupDrive,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "sequential", Usage: "run gates one after another, stopping at the first failure"}, jsonFlag, trustFlag},
		Action: func(c *cli.Context) error {
			return withLoop(c, func(s *loop.Store, name string) error {
				s.Trust = c.Bool("trust")
				results, err := s.Check(c.Context, name, c.Bool("sequential"))
				if err != nil {
					return err
				}
				weakened, err := s.CheckWeakenings(name)
				if err != nil {
					return err
				}
				if err := loop.PrintGates(out, results, c.Bool("json")); err != nil {
					return err
				}
				if !c.Bool("json") {
					review.PrintWeakened(out, weakened)
				}
				if !loop.Verified(results) {
					return errGatesFail
				}
				if len(loop.Blocking(weakened)) > 0 {
					return errChecksWeakened
				}
				return nil
			})
		},
	}
}
