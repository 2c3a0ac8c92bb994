package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/share"
)

// fetchCommand is `git loop fetch [REMOTE]`: a remote's loops, read as REMOTE/NAME, with the
// user's own git.
func fetchCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "fetch", Usage: "fetch a remote's loops to refs/loop-remotes/REMOTE/* and merge its provenance notes", ArgsUsage: "[REMOTE]", Category: groupShare,
		Description: "Read a fetched loop as REMOTE/NAME: git loop log origin/fix. Its gate commands run only with --trust.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageError{msg: "fetch takes at most one remote; see `git loop help fetch`"}
			}
			return withStore(func(s *loop.Store) error {
				rep, err := share.Fetch(s, c.Context, c.Args().First())
				if err != nil {
					return err
				}
				share.PrintFetch(out, rep)
				return nil
			})
		},
	}
}
