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

func doctorCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "doctor", Usage: "check, for each agent, that its git-loop hooks are installed and would run", Category: groupSetup,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Description: "For claude, codex, gemini, cursor and copilot: where git-loop's hooks are installed (this " +
			"project, the user's files) and whether the agent would run them, with the command that fixes what " +
			"would stop it: Codex's project trust and hook review, Gemini CLI's and Copilot CLI's trusted folders, " +
			"git-loop on PATH. Outside a git worktree only the user's files are checked. Exits 0 when every " +
			"installed hook would run, 1 otherwise.",
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
			if !rep.OK {
				return errHookIdle
			}
			return nil
		},
	}
}
