package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/internal/manpage"
	"github.com/git-loop/git-loop/loop"
)

// installCommand is `git loop install AGENT | man`: an agent's hook configuration, merged
// into its settings, or the manual page (installMan).
func installCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "install", Usage: "write an agent's hook configuration (merging, never clobbering), or the manual page",
		ArgsUsage: "AGENT | man", Category: groupSetup,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "user", Usage: "install for the user (e.g. ~/.claude/settings.json) instead of this project"},
			&cli.StringFlag{Name: "dir", Usage: "with man: write git-loop.1 into `DIR`", DefaultText: "beside git-loop, DIR/../share/man/man1 for its DIR on PATH, else $XDG_DATA_HOME/man/man1 or ~/.local/share/man/man1"},
		},
		Description: "AGENT is " + hooks.AgentList("or") + ". For codex it also records the hook's review in " +
			"$CODEX_HOME/config.toml, as Codex's /hooks does (Codex skips a hook until then). It says what else keeps " +
			"the agent from running the hook (a project or folder the agent does not trust), with the fix; " +
			"`git loop doctor` checks again later. `man` installs the manual page instead, " +
			"for `man git-loop` and `git loop --help` (--user changes nothing): beside git-loop, where man-db " +
			"finds it with no MANPATH edit, or in the user's man directory when that cannot be written; it says " +
			"how to make man find the page when man does not search its directory. Any other command writes " +
			"the page beside git-loop by itself when it is missing there (not with " + noAutoManEnv + "=1).",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError{msg: "install takes one agent or man, e.g. `git loop install claude`"}
			}
			if c.Args().First() == "man" {
				return installMan(c, out)
			}
			if c.IsSet("dir") {
				return usageError{msg: "--dir is for `git loop install man`; an agent's hooks go where the agent reads them (--user for the user's)"}
			}
			dir, err := loop.WorktreeTop(".")
			if err != nil && !c.Bool("user") {
				return err
			}
			results, err := hooks.Install(c.Args().First(), dir, c.Bool("user"))
			for _, r := range results {
				fmt.Fprint(out, r.String())
			}
			return err
		},
	}
}

// installMan is `git loop install man [--dir DIR]`: the manual page beside git-loop, where
// man-db finds it with no MANPATH edit (manpage.Beside the directory on PATH that holds
// git-loop), when that can be written; else into the user's man directory.
func installMan(c *cli.Context, out io.Writer) error {
	dir := c.String("dir")
	if c.IsSet("dir") && dir == "" {
		return usageError{msg: "--dir needs a directory, e.g. --dir ~/.local/share/man/man1"}
	}
	if dir == "" {
		if exe, err := os.Executable(); err == nil {
			if bin := manpage.PathDir(exe, os.Getenv("PATH")); bin != "" {
				res, err := manpage.Install(manpage.Beside(bin))
				if err == nil {
					_, err = fmt.Fprint(out, res.String())
					return err
				}
				fmt.Fprintf(out, "cannot write the page beside git-loop (%v); writing it to your own man directory instead\n", err)
			}
		}
		var err error
		if dir, err = manpage.DefaultDir(); err != nil {
			return err
		}
	}
	res, err := manpage.Install(dir)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(out, res.String())
	return err
}
