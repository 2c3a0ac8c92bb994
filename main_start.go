package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/loop"
)

// startCommand is `git loop start [NAME | TASK…]`: a loop in this worktree, bound to the
// agent session; with --slash-args, the loop Claude Code's /git-loop command starts.
func startCommand(out io.Writer) *cli.Command {
	return &cli.Command{
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

// slashArgsFlag is how Claude Code's /git-loop command starts a loop: the text typed after
// /git-loop, read from FILE or standard input through a quoted here-document, so that no
// shell ever parses it; git-loop splits it itself (hooks.ParseSlashArgs).
var slashArgsFlag = &cli.StringFlag{Name: "slash-args", Hidden: true,
	Usage: "read the task and start's options from the /git-loop command's argument text in `FILE` (- for standard input)"}

// slashFlags are the options the /git-loop arguments may hold: start's own (their
// spelling and meaning), but for --prompt-file, and --name for the loop's name, since every
// word that is no option is the task.
func slashFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range startFlags() {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue // kept on start for old scripts (--force), never part of /git-loop
		}
		if f.Names()[0] != "prompt-file" {
			out = append(out, f)
		}
	}
	return append(out, nameFlag())
}

// parseSlashStart reads the /git-loop arguments (--slash-args) into start's options: the
// words that are no option are the task, and the options go through start's own flags, so
// they mean exactly what they mean to start. A --session among them wins over the one the
// command passes (Claude Code's session), which wins over $CLAUDE_CODE_SESSION_ID.
func parseSlashStart(c *cli.Context) (loop.StartOptions, error) {
	if c.NArg() > 0 || c.IsSet("prompt") || c.IsSet("prompt-file") || c.IsSet("name") {
		return loop.StartOptions{}, usageError{msg: "--slash-args holds the task and the options; give no NAME, --name, -p or --prompt-file with it"}
	}
	text, err := readSlashArgs(c)
	if err != nil {
		return loop.StartOptions{}, err
	}
	text, ok := cutSlashEnd(text)
	if !ok {
		return loop.StartOptions{}, usageError{msg: fmt.Sprintf("%v: they were cut short, so no loop was started: a line of three backquotes (```) ends Claude Code's command block, and a line GIT_LOOP_ARGS its here-document; indent such lines, or write the task to a file and run `git loop start --prompt-file FILE`", hooks.ErrSlashArgs)}
	}
	flags := slashFlags()
	known := map[string]bool{}
	for _, f := range flags {
		_, isSwitch := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			known[n] = !isSwitch
		}
	}
	args, err := hooks.ParseSlashArgs(text, known)
	if err != nil {
		return loop.StartOptions{}, usageError{msg: err.Error()}
	}
	if args.Help {
		printSlashHelp(c.App.Writer, flags)
		return loop.StartOptions{}, usageError{msg: "no loop was started: --help shows the /git-loop usage above; run /git-loop with a task"}
	}
	// The options go through a small app of start's flags, so that they parse exactly as
	// start's do (a comma in a --promise is no separator there either).
	var opts loop.StartOptions
	sub := &cli.App{Name: "/git-loop", Flags: flags, HideHelp: true, HideVersion: true, DisableSliceFlagSeparator: true,
		Reader: c.App.Reader, Writer: io.Discard, ErrWriter: io.Discard, ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{msg: fmt.Sprintf("%v: %s; /git-loop --help lists the options", hooks.ErrSlashArgs, flagMessage(err.Error()))}
		},
		Action: func(sc *cli.Context) error {
			if args.Prompt != "" {
				if sc.String("prompt") != "" {
					return usageError{msg: fmt.Sprintf("%v: give the task as words or with -p, not both", hooks.ErrSlashArgs)}
				}
				if err := sc.Set("prompt", args.Prompt); err != nil {
					return err
				}
			}
			var err error
			if opts, err = parseStart(sc); err != nil {
				return err
			}
			opts.Name = sc.String("name")
			if !sc.IsSet("session") && c.String("session") != "" {
				opts.Session = c.String("session")
			}
			return nil
		}}
	if err := sub.Run(append([]string{"/git-loop"}, args.Flags...)); err != nil {
		return opts, err
	}
	return opts, nil
}

// cutSlashEnd removes the line hooks.SlashArgsEnd that ends whole arguments (and what
// white space follows it), reporting whether it was there.
func cutSlashEnd(text string) (string, bool) {
	rest := strings.TrimRight(text, " \t\r\n")
	body, ok := strings.CutSuffix(rest, hooks.SlashArgsEnd)
	if !ok || (body != "" && !strings.HasSuffix(body, "\n")) {
		return text, false
	}
	return body, true
}

// readSlashArgs reads the argument text, bounded as a prompt file is.
func readSlashArgs(c *cli.Context) (string, error) {
	return readFlagFile(c, slashArgsFlag.Name)
}

// printSlashHelp writes the /git-loop usage: the task words and the options, as start's
// flags describe them in its help.
func printSlashHelp(w io.Writer, flags []cli.Flag) {
	fmt.Fprintln(w, `/git-loop TASK… [OPTIONS]: start a git-loop loop on TASK in this worktree.
Words that are no option form the task; quote words to keep their spaces ("…" or '…');
words after a lone -- are the task even when they start with -.`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, d := range flagDocs(flags) {
		fmt.Fprintf(tw, "  %s\t%s\n", d, d.usage)
	}
	tw.Flush()
}

// printBriefing writes, after a /git-loop start, what the agent is to do: the task and what
// completes the loop, as a new session would be told.
func printBriefing(out io.Writer, s *loop.Store, st *loop.State) error {
	text, err := s.Briefing(st.Name, st.Session)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(out, "\n"+text)
	return err
}
