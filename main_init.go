package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/project"
)

// initCommand is `git loop init`: detect the worktree's projects and write a .gitloop with
// gates for them.
func initCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "init", Usage: "write a .gitloop with gates for the Go, Rust, Node and Python projects found here", Category: groupSetup,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace an existing .gitloop"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the proposed .gitloop instead of writing it"},
			&cli.Float64Flag{Name: "coverage", Usage: "make test gates that measure coverage require at least `PERCENT`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{msg: "init takes no arguments; it looks at the whole worktree"}
			}
			if c.IsSet("coverage") && c.Float64("coverage") <= 0 {
				return usageError{msg: "--coverage wants a percentage above 0, e.g. --coverage 80"}
			}
			dir, err := loop.WorktreeTop(".")
			if err != nil {
				return err
			}
			res, err := project.Init(project.InitOptions{Dir: dir, Force: c.Bool("force"), DryRun: c.Bool("dry-run"), Coverage: c.Float64("coverage")})
			if err != nil {
				return err
			}
			return project.PrintInit(out, res, c.Bool("json"))
		},
	}
}
