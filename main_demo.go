package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop/driver"
)

// demoCommand is `git loop demo`: a loop driven with a scripted agent in a scratch
// repository, then its history.
func demoCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "demo", Usage: "run a loop with a scripted agent in a scratch repository and show its history", Category: groupSetup,
		Action: func(c *cli.Context) error { return driver.Demo(c.Context, out) },
	}
}
