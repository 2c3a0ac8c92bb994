package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/internal/manpage"
	"github.com/git-loop/git-loop/loop"
)

// The manual page, internal/manpage/git-loop.1, is made from the command definitions here at
// development time and embedded; git-loop never renders it (urfave/cli's own ToMan would
// link a Markdown parser whose start-up costs every hook). TestManPage fails when the
// committed page is not what the definitions make.
//go:generate go test . -run TestManPage -update

// manDoc is the manual page's content: every command, grouped and ordered as `git loop help`
// lists them, with its options and examples, and the sections around them.
func manDoc(usage string, cmds []*cli.Command) manpage.Doc {
	doc := manpage.Doc{
		Name: "git-loop", Section: 1, Source: "git-loop", Manual: "Git Manual", Purpose: usage,
		Synopsis: []string{"git loop <command> [<options>] [<args>]", "git loop help [<command>]"},
		Description: []string{
			"git-loop keeps an AI coding agent (Claude Code, Codex CLI, Gemini CLI, Cursor, Copilot CLI, or any " +
				"headless agent command) working until the work is verifiably done. Each time the agent stops, " +
				"git-loop snapshots the worktree, runs the loop's gates and reads the agent's last message: the agent " +
				"may stop only when the loop's exit policy is met (by default, every gate passes and the agent wrote " +
				"`<promise>PHRASE</promise>`); otherwise it is sent back with the task and what failed. Limits and " +
				"circuit breakers (no progress, the same failure, thrashing, rework, budgets) pause the loop for a " +
				"person instead of looping forever.",
			"Everything about a loop is stored in git: its goal, its state, a snapshot of the worktree at every " +
				"iteration and the final report are commits on `refs/loop/NAME`, so `git log`, `git diff`, " +
				"`git bisect` and `git push` work on a loop's history like on any branch.",
			"Agents run git-loop from their hooks (`git loop install AGENT` writes them), or `git loop run` drives " +
				"a headless agent command itself. On PATH, git-loop is the git subcommand `git loop`, and " +
				"`git loop --help` shows this page, which git-loop writes beside itself on first use " +
				"(`DIR/../share/man/man1` for its DIR on PATH, where man-db looks by itself; `git loop install man` " +
				"writes it again, or elsewhere).",
			"NAME defaults to the loop of the current worktree; with none active there, the reading commands " +
				"(`status`, `log`, `show`, `diff`, `report`, `bisect`) take the last loop that ran here. Flags may " +
				"come before or after NAME.",
		},
	}
	for _, group := range commandGroups {
		g := manpage.Group{Title: group}
		for _, c := range cmds {
			if c.Category != group || c.Hidden {
				continue
			}
			mc := manpage.Command{Name: "git loop " + c.Name, Args: commandArgs(c), Summary: c.Usage,
				Description: paragraphs(c.Description), Examples: examples[c.Name]}
			for _, o := range flagDocs(c.Flags) {
				mc.Options = append(mc.Options, manpage.Option{Names: o.names, Placeholder: o.placeholder, Usage: o.usage})
			}
			g.Commands = append(g.Commands, mc)
		}
		doc.Groups = append(doc.Groups, g)
	}
	doc.Sections = []manpage.Section{
		{Title: "exit status", Items: exitCodeDocs, Paragraphs: []string{
			"Each code has one meaning, so a script can tell a loop that needs a person (6) from a command line " +
				"that is wrong (2). `git loop hook` is the exception: agents read its answer, not its code, and a " +
				"non-zero code can trap an agent, so it always exits 0 and says what is wrong on stderr.",
		}},
		{Title: "files", Items: []manpage.Item{
			{Tag: "`refs/loop/NAME`", Text: "a loop: its history of state commits, one per iteration, each with the worktree's snapshot"},
			{Tag: "`refs/loop-remotes/REMOTE/NAME`", Text: "a loop fetched with `git loop fetch`, read as REMOTE/NAME"},
			{Tag: "`refs/notes/loop`", Text: "provenance notes: the loop and iteration each commit came from (`git log --notes=loop`)"},
			{Tag: "`.gitloop`", Text: "the project's gates and loop settings, in git config syntax (`git loop init` proposes one)"},
			{Tag: "`.git/loop/`", Text: "local caches and locks; deleting it loses nothing"},
		}},
		{Title: "see also", Paragraphs: []string{
			"git(1), git-bisect(1), git-worktree(1), git-notes(1); the README at https://github.com/git-loop/git-loop",
		}},
	}
	return doc
}

// exitCodeDocs are the exit codes as the man page lists them; README.md's table says the same
// at more length.
var exitCodeDocs = []manpage.Item{
	{Tag: strconv.Itoa(exitOK), Text: "Success; also a change that is already so (pausing a paused loop). `run`: the loop completed. " +
		"`bisect`: the first bad iteration was found."},
	{Tag: strconv.Itoa(exitFailure), Text: "An unexpected failure (I/O, unreadable objects); also the answer \"no\": an installed hook " +
		"would not run, or none is installed (`doctor`), a gate fails (`check`), a spec is only an intent (`score`), a push would carry secrets (`push`), nothing to bisect (`bisect`)."},
	{Tag: strconv.Itoa(exitUsage), Text: "Bad usage, fixed in what you typed or wrote: an unknown command, flag or help topic, a " +
		"missing or invalid value, an invalid loop name or configuration, no such remote, a fetched loop's gates " +
		"without `--trust`, changing a fetched loop."},
	{Tag: strconv.Itoa(exitNoLoop), Text: "No such loop, no loop active in this worktree, or no such iteration."},
	{Tag: strconv.Itoa(exitConflict), Text: "A conflict with the loop's or the worktree's state: the worktree has a loop, the name " +
		"exists, the loop has ended, used its iterations or is paused (`run`), a lock is held, another `run` drives " +
		"the loop, the remote rejected a push, a restore would lose files no snapshot holds."},
	{Tag: strconv.Itoa(exitUnsupported), Text: "An unsupported repository: not a repository, bare, reftable refs, SHA-256 objects."},
	{Tag: strconv.Itoa(exitPaused), Text: "`run` only: the loop it drove stopped without completing, paused (a limit, a breaker, " +
		"a person) or cancelled, so it needs a person; `git loop status` says why."},
	{Tag: strconv.Itoa(exitInterrupted), Text: "Interrupted (Ctrl-C) during `run` (the loop is paused) or `bisect` (its scratch " +
		"worktree removed)."},
}

// ensureManPage writes the manual page beside git-loop when it is not there yet (one stat when
// it is), so that `git loop --help`, which git turns into `man git-loop`, works after an
// install with no MANPATH edit; it says so once, on stderr. Every failure is silent: the
// command the person ran is what matters.
func ensureManPage(stderr io.Writer) {
	if os.Getenv(noAutoManEnv) != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	if res, wrote, err := manpage.Ensure(exe, os.Getenv("PATH")); err == nil && wrote {
		fmt.Fprint(stderr, "git-loop: "+res.Brief())
	}
}

// writesManPage reports whether a command line is one on which git-loop writes its manual
// page if missing (ensureManPage): any a person runs, but the background roll-up and
// `install man`, which writes it itself. (The hook, the hot path, and the gate guard never
// get this far.)
func writesManPage(args []string) bool {
	if len(args) < 2 {
		return true
	}
	switch args[1] {
	case loop.MaintenanceArg:
		return false
	case "install":
		return !slices.Contains(args[2:], "man")
	}
	return true
}
