package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
	"github.com/git-loop/git-loop/loop/gates"
)

func main() {
	// git-loop is a short-lived process whose heap stays small (tens of MB even for a large
	// worktree): collecting garbage costs more than it frees. The limit keeps a safety net.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI with injected IO and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[1] == gates.GuardArg { // a gate's guard, started by git-loop itself
		return gates.RunGuard(args[2:])
	}
	loop.UseGateGuard(os.Executable)
	loop.UseBackgroundMaintenance(os.Executable)
	if len(args) >= 2 && args[1] == "hook" {
		return runHook(args[2:], stdin, stdout, stderr)
	}
	if writesManPage(args) {
		ensureManPage(stderr)
	}
	app := newApp(stdin, stdout, stderr)
	args, agent, hasAgent := splitAgent(args)
	args, err := flagsFirst(app.Commands, args)
	if err == nil {
		err = checkPromiseArgs(args)
	}
	if err == nil && !hasAgent && !asksHelp(args) {
		err = commandMissing(args)
	}
	if err == nil {
		ctx := context.Background()
		if len(args) < 2 || !readOnly[args[1]] {
			var stop context.CancelFunc
			ctx, stop = interruptible()
			defer stop()
		}
		err = app.RunContext(withAgentArgs(ctx, agent), args)
		if err != nil && strings.HasPrefix(err.Error(), "No help topic for ") { // urfave/cli's own words
			err = usageError{msg: "no help topic " + strings.TrimPrefix(err.Error(), "No help topic for ") + "; `git loop help` lists the commands"}
		}
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, loop.ErrNoChange) {
		fmt.Fprintln(stderr, "git-loop:", err)
		return exitOK
	}
	if !errors.Is(err, driver.ErrRunPaused) { // run has said why it stopped
		fmt.Fprintln(stderr, "git-loop:", err)
	}
	return exitCode(err)
}

// newApp is git-loop's CLI: its commands, with git-like help and usage errors.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	cli.HelpPrinter = printHelp // the framework's one hook for help: git-like, grouped, with examples
	cmds := commands(stdout, stderr)
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		c.HideHelpCommand = true
	}
	return &cli.App{
		Name:  "git-loop",
		Usage: "keep an AI coding agent working until the work is verifiably done, with the loop stored in git",
		// A promise or a gate's command may hold commas: every value of a repeatable flag is
		// one value, as git's own repeatable options are.
		DisableSliceFlagSeparator: true,
		Reader:                    stdin,
		Writer:                    stdout,
		ErrWriter:                 stderr,
		Version:                   version(),
		Commands:                  cmds,
		HideHelpCommand:           false,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{msg: fmt.Sprintf("unknown command %q; see `git loop help`", c.Args().First())}
			}
			cli.ShowAppHelp(c)
			return usageError{msg: "no command given; see the list above"}
		},
		OnUsageError:   onUsageError,
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// commands are git-loop's commands, in the order `git loop help` lists them within their
// groups; each is made in its own file, main_NAME.go.
func commands(out, errOut io.Writer) []*cli.Command {
	return []*cli.Command{
		startCommand(out),
		statusCommand(out),
		listCommand(out, errOut),
		pauseCommand(out),
		resumeCommand(out),
		cancelCommand(out),
		approveCommand(out),
		checkpointCommand(out, errOut),
		checkCommand(out),
		runCommand(out, errOut),
		goalCommand(out, errOut),
		importCommand(out),
		logCommand(out),
		showCommand(out),
		diffCommand(out),
		reportCommand(out),
		restoreCommand(out, errOut),
		bisectCommand(out, errOut),
		pushCommand(out),
		fetchCommand(out),
		installCommand(out),
		doctorCommand(out),
		initCommand(out),
		scoreCommand(out),
		demoCommand(out),
		hookCommand(),
		maintenanceCommand(out),
	}
}
