package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
	"github.com/git-loop/git-loop/loop/review"
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
	if len(args) >= 2 && args[1] == loop.GuardArg { // a gate's guard, started by git-loop itself
		return loop.RunGuard(args[2:])
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

// runHook is `git loop hook AGENT EVENT`, dispatched before the CLI framework is set up:
// it runs at every agent stop, loop or not. Its exit codes are the agent's protocol.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "git-loop: usage: git loop hook AGENT EVENT (e.g. git loop hook claude stop)")
		return exitOK // never trap an agent over a configuration mistake
	}
	// No signal handling here: the idle path must cost one process start. ClaudeStop sets it
	// up once it knows a loop is active and gates will run.
	return hooks.Run(context.Background(), args[0], args[1], hooks.Streams{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// errChecksWeakened makes `check` exit 1 when the gates pass on checks weaker than at the
// loop's start, which the next stop would not complete on.
var errChecksWeakened = errors.New("the gates pass, but the checks are weaker than at the loop's start (see above; `git loop approve` allows it)")

// errGatesFail makes `check` exit 1 when a gate does not pass, or every gate skipped; the
// gates' output says why.
var errGatesFail = errors.New("not every gate passes")

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

func commands(out, errOut io.Writer) []*cli.Command {
	// In the order `git loop help` lists them within their groups.
	cmds := []*cli.Command{
		{
			Name: "start", Usage: "start a loop in this worktree", ArgsUsage: "[NAME | TASK…]", Category: groupDrive,
			Description: "One word that is a valid loop name is NAME. Several words, or one with white space in it, are the\n" +
				"task, as -p gives it (and as the ralph-loop plugin takes it), and so is every word with --name; the\n" +
				"loop is then named with --name, or after the branch.",
			Flags: append(startFlags(), nameFlag(), jsonFlag, slashArgsFlag),
			Action: func(c *cli.Context) error {
				parse := parseStartWords
				if c.IsSet(slashArgsFlag.Name) {
					parse = parseSlashStart
				}
				opts, err := parse(c)
				if err != nil {
					return err
				}
				return withStore(func(s *loop.Store) error {
					st, err := startAndPrint(out, s, opts, c.Bool("json"))
					switch {
					case err != nil || st == nil: // failed, or JSON
						return err
					case c.IsSet(slashArgsFlag.Name): // inside Claude Code already: the agent's briefing
						return printBriefing(out, s, st)
					}
					return printNextStep(out, st)
				})
			},
		},
		{
			Name: "status", Usage: "show a loop's state", ArgsUsage: "[NAME]", Flags: []cli.Flag{jsonFlag}, Category: groupDrive,
			Action: func(c *cli.Context) error {
				name, err := oneName(c)
				if err != nil {
					return err
				}
				// A reading command: with no name, the active loop or else the last one that
				// ran here, as log, show, diff and report take.
				return withRecent(name, func(s *loop.Store, name string) error {
					st, cfg, err := s.Status(name)
					if err != nil {
						return err
					}
					return review.PrintStatus(out, st, cfg, c.Bool("json"))
				})
			},
		},
		{
			Name: "list", Usage: "list active and paused loops", Category: groupDrive, Flags: []cli.Flag{
				&cli.BoolFlag{Name: "all", Usage: "include completed and cancelled loops"}, jsonFlag,
			},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageError{msg: "list takes no arguments; see `git loop help list`"}
				}
				return withStore(func(s *loop.Store) error {
					states, skipped, err := s.List(c.Bool("all"))
					if err != nil {
						return err
					}
					if c.Bool("all") { // others' loops, fetched with `git loop fetch`
						fetched, more, err := s.ListFetched()
						if err != nil {
							return err
						}
						states, skipped = append(states, fetched...), append(skipped, more...)
					}
					warnSkipped(errOut, skipped)
					return review.PrintList(out, s.WithProblems(states), c.Bool("json"))
				})
			},
		},
		transitionCommand(out, loop.Pause, "pause a loop: the hook lets the agent stop until it is resumed"),
		transitionCommand(out, loop.Resume, "resume a paused loop"),
		transitionCommand(out, loop.Cancel, "cancel a loop; its history stays on refs/loop/NAME"),
		approveCommand(out),
		{
			Name: "checkpoint", Usage: "record a snapshot of the worktree now as the loop's next iteration", ArgsUsage: "[NAME]", Category: groupDrive,
			Flags: []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				return withLoop(c, func(s *loop.Store, name string) error {
					st, rec, err := s.Checkpoint(name)
					if err != nil {
						return err
					}
					if rec.NotesErr != nil {
						fmt.Fprintf(errOut, "git-loop: warning: %v\n", rec.NotesErr)
					}
					return review.PrintCheckpoint(out, st, rec, c.Bool("json"))
				})
			},
		},
		{
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
		},
		runCommand(out, errOut),
		goalCommand(out, errOut),
		importCommand(out),
	}
	cmds = append(cmds, historyCommands(out)...)
	cmds = append(cmds, reportCommand(out), restoreCommand(out, errOut), bisectCommand(out, errOut))
	cmds = append(cmds, shareCommands(out)...)
	return append(cmds,
		&cli.Command{
			Name: "install", Usage: "write an agent's hook configuration (merging, never clobbering), or the manual page",
			ArgsUsage: "AGENT | man", Category: groupSetup,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "user", Usage: "install for the user (e.g. ~/.claude/settings.json) instead of this project"},
				&cli.StringFlag{Name: "dir", Usage: "with man: write git-loop.1 into `DIR`", DefaultText: "beside git-loop, DIR/../share/man/man1 for its DIR on PATH, else $XDG_DATA_HOME/man/man1 or ~/.local/share/man/man1"},
			},
			Description: "AGENT is claude, codex, gemini, cursor or copilot. For codex it also records the hook's review in " +
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
		},
		doctorCommand(out),
		initCommand(out),
		scoreCommand(out),
		&cli.Command{
			Name: "demo", Usage: "run a loop with a scripted agent in a scratch repository and show its history", Category: groupSetup,
			Action: func(c *cli.Context) error { return driver.Demo(c.Context, out) },
		},
		&cli.Command{
			Name: "hook", Usage: "agent hook entry point: stdin payload in, protocol answer out", ArgsUsage: "AGENT EVENT", Category: groupPlumbing,
			Action: func(c *cli.Context) error { return nil }, // dispatched in run, before the CLI framework
		},
		maintenanceCommand(out),
	)
}

func transitionCommand(out io.Writer, t loop.Transition, usage string) *cli.Command {
	flags := []cli.Flag{jsonFlag}
	if t == loop.Resume {
		flags = append(flags, &cli.IntFlag{Name: "max-iterations", Usage: "raise the iteration limit to `N` (for a loop paused at its limit)"},
			maxDurationFlag, tokenBudgetFlag, evaluatorBudgetFlag, notDoneFlag, freshFlag, fromFlag, trustFlag)
	}
	return &cli.Command{
		Name: string(t), Usage: usage, ArgsUsage: "[NAME]", Flags: flags, Category: groupDrive,
		Action: func(c *cli.Context) error {
			name, err := oneName(c)
			if err != nil {
				return err
			}
			return withStore(func(s *loop.Store) error {
				name, err := s.ResolveTransition(name, t)
				if err != nil {
					return err
				}
				st, err := resume(s, name, t, c)
				if err != nil {
					return err
				}
				return review.PrintState(out, st, c.Bool("json"), transitionVerb(t, st))
			})
		},
	}
}

// parseStartWords turns start's words and flags into loop.StartOptions: its words are NAME
// or the task (startWords), and --name names the loop too.
func parseStartWords(c *cli.Context) (loop.StartOptions, error) {
	name, task, err := startWords(c)
	if err != nil {
		return loop.StartOptions{}, err
	}
	return startOptions(c, name, task)
}

// startWords reads start's words as the ralph-loop plugin's users type them: several words,
// or one with white space in it, are the task; a single word is the loop's NAME when it is a
// valid loop name, as it always was, and refused when it is not, since it reads as neither
// for sure. With --name every word is the task, as in /git-loop.
func startWords(c *cli.Context) (name, task string, err error) {
	words := c.Args().Slice()
	name = c.String("name")
	if c.IsSet("name") && name == "" {
		return "", "", usageError{msg: "--name is empty; give a name, or leave --name out to name the loop after the branch"}
	}
	switch {
	case len(words) == 0:
		return name, "", nil
	case len(words) == 1 && !c.IsSet("name") && !strings.ContainsFunc(words[0], unicode.IsSpace):
		word := words[0]
		if word == "" {
			return "", "", usageError{msg: "the loop name is empty; give a name, or none to use the default"}
		}
		if err := loop.CheckName(word); err != nil {
			if c.IsSet("prompt") || c.IsSet("prompt-file") {
				return "", "", err
			}
			return "", "", fmt.Errorf("%w; if it is the task, give it with -p: `git loop start -p %s`", err, shellQuote(word))
		}
		return word, "", nil
	}
	task = strings.Join(words, " ")
	typed := ""
	switch {
	case c.IsSet("prompt"):
		typed = "-p"
	case c.IsSet("prompt-file"):
		typed = "--prompt-file"
	}
	if typed != "" {
		return "", "", usageError{msg: fmt.Sprintf("the task is given twice, as words (%s) and with %s; give it once (a loop's NAME is one word, or --name NAME)",
			shellQuote(clip(task, 40)), typed)}
	}
	return name, task, nil
}

// shellQuote quotes s for a POSIX shell, for a command line a message suggests.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// clip shortens s to at most n runes, marking a cut with "…".
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// warnSkipped prints one warning line per ref under refs/loop/ that List left out.
func warnSkipped(w io.Writer, skipped []string) {
	for _, why := range skipped {
		fmt.Fprintf(w, "git-loop: warning: %s; ignoring it\n", why)
	}
}
