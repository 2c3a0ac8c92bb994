package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/loop"
)

// errHookIdle makes `doctor` exit 1 when an installed hook would not run; the report says why.
var errHookIdle = errors.New("an installed hook would not run")

// errNoHook makes `doctor` exit 1 when no agent has git-loop's hooks installed at all: no
// agent would run a loop, which is as much a "no" as an idle hook.
var errNoHook = errors.New("no agent would run git-loop's hook: none is installed, here or for the user; " +
	hooks.InstallHint() + " installs one, or `" + hooks.DriverCommand + "` drives an agent without one")

func doctorCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "doctor", Usage: "check, for each agent, that its git-loop hooks are installed and would run", Category: groupSetup,
		Flags: []cli.Flag{jsonFlag},
		Description: "For " + hooks.AgentList("and") + ": where git-loop's hooks are installed (this " +
			"project, the user's files) and whether the agent would run them, with the command that fixes what " +
			"would stop it: the agent's own rules, as its files record them (a project's trust, hook reviews, " +
			"trusted folders, hooks turned off), and git-loop on PATH. Outside a git worktree only the user's " +
			"files are checked. Exits 0 when every installed hook would run, 1 when one would not or when none is " +
			"installed (no agent would run a loop).",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{msg: "doctor takes no arguments"}
			}
			dir, err := loop.WorktreeTop(".")
			if err != nil {
				dir = ""
			}
			rep := hooks.Doctor(dir)
			if c.Bool("json") {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				fmt.Fprint(out, rep.String())
			}
			switch {
			case !rep.Installed():
				return errNoHook
			case !rep.OK:
				return errHookIdle
			}
			return nil
		},
	}
}
