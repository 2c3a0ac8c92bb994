package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
)

// hookCommand is `git loop hook AGENT EVENT` as help and the man page list it; run
// dispatches the command line to runHook before the CLI framework is set up.
func hookCommand() *cli.Command {
	return &cli.Command{
		Name: "hook", Usage: "agent hook entry point: stdin payload in, protocol answer out", ArgsUsage: "AGENT EVENT", Category: groupPlumbing,
		Action: func(c *cli.Context) error { return nil }, // dispatched in run, before the CLI framework
	}
}

// runHook is `git loop hook AGENT EVENT`, dispatched before the CLI framework is set up:
// it runs at every agent stop, loop or not. Its exit codes are the agent's protocol.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "git-loop: usage: git loop hook AGENT EVENT (e.g. git loop hook claude stop)")
		return exitOK // never trap an agent over a configuration mistake
	}
	// No signal handling here: the idle path must cost one process start. kit.RunStop sets it
	// up once it knows a loop is active and gates will run.
	return hooks.Run(context.Background(), args[0], args[1], hooks.Streams{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}
