package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/importer"
)

// importCommand is `git loop import FILE [NAME]`: start a loop from another loop tool's
// state file, with start's flags overriding what the file records.
func importCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "import", Usage: "start a loop from another loop tool's state file (the file is left untouched)", ArgsUsage: "FILE [NAME]", Category: groupDrive,
		Description: "FILE is .claude/ralph-loop.local.md, .safe-rust/loop-state.json, .loop/state.json,\n" +
			".stravinsky/continuation-loop.md or .moai/cache/.moai_loop_state.json (or any file with --format).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "read FILE as `FORMAT`: ralph-loop, safe-rust, loop-state, stravinsky or moai (default: detected)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "show what would be carried over, start nothing"},
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "replace the imported task"},
			&cli.IntFlag{Name: "max-iterations", Usage: "replace the imported limit with `N` (0 needs --unlimited)", DefaultText: "the file's, else as for start"},
			&cli.BoolFlag{Name: "unlimited", Usage: "allow a loop without an iteration limit"},
			&cli.StringSliceFlag{Name: "promise", Usage: "replace the imported promise with `PHRASE`"},
			&cli.StringSliceFlag{Name: "gate", Usage: "gate `NAME=CMD`, in order (repeatable)"},
			&cli.StringFlag{Name: "exit", Usage: "exit `POLICY`: both, gates, promise or either"},
			&cli.StringFlag{Name: "session", Usage: "bind the loop to agent session `ID` (default: the file's session_id, else $CLAUDE_CODE_SESSION_ID)"},
			shapeFlag, forceFlag,
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			opts, err := parseImport(c)
			if err != nil {
				return err
			}
			return withStore(func(s *loop.Store) error {
				res, err := importer.Import(s, opts)
				if err != nil {
					return err
				}
				if err := importer.PrintImport(out, res, c.Bool("json")); err != nil || c.Bool("json") || res.State == nil {
					return err // failed, JSON, or a dry run: nothing started
				}
				return printNextStep(out, res.State)
			})
		},
	}
}

// parseImport turns import's arguments and flags into loop.ImportOptions.
func parseImport(c *cli.Context) (importer.ImportOptions, error) {
	var opts importer.ImportOptions
	switch {
	case c.NArg() == 0 || c.Args().First() == "":
		return opts, usageError{msg: "import needs the state file, e.g. `git loop import .claude/ralph-loop.local.md`"}
	case c.NArg() > 2:
		return opts, usageError{msg: fmt.Sprintf("import takes a file and at most one loop name, got %d arguments", c.NArg())}
	}
	opts.File, opts.Name = c.Args().Get(0), c.Args().Get(1)
	opts.Format, opts.DryRun = c.String("format"), c.Bool("dry-run")
	var err error
	opts.Flags, opts.Session, err = startSettings(c)
	if err != nil {
		return opts, err
	}
	if c.String("session") == "" { // the file's session, if it names one, comes before the environment's
		opts.DefaultSession, opts.Session = opts.Session, ""
	}
	return opts, nil
}
