package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/loop"
)

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
