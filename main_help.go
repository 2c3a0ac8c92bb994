package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// The groups `git loop help` lists the commands in, in the order a person looks for them:
// driving a loop first, then reviewing and sharing it, then setting up; last the plumbing
// that agents run. Every command's Category is one of them (TestEveryCommandHasAGroup).
const (
	groupDrive    = "start and drive a loop"
	groupReview   = "review a loop's history"
	groupShare    = "share loops"
	groupSetup    = "set up agents and projects"
	groupPlumbing = "plumbing (what agents run)"
)

// commandGroups is the groups' order. urfave/cli sorts categories by name, so the help is
// rendered here (printHelp) rather than by its templates.
var commandGroups = []string{groupDrive, groupReview, groupShare, groupSetup, groupPlumbing}

// helpWidth is the widest line help prints; longer text is wrapped.
const helpWidth = 100

// examples are each command's examples, shown by `git loop help COMMAND` and in the man page:
// command lines as typed, a "#" comment after them when they need one.
var examples = map[string]string{
	"start": `git loop start fix-login --promise "LOGIN FIXED" --gate 'test=go test ./...' \
    -p "Fix the login redirect in auth/login.go; only change auth/."
git loop start --prompt-file spec.md --max-iterations 20   # gates from .gitloop
git loop start "Build a REST API for todos. Output <promise>COMPLETE</promise> when done." \
    --completion-promise COMPLETE --max-iterations 20   # words: the task`,
	"status":     "git loop status            # this worktree's loop, or the last one that ran here\ngit loop status fix-login --json",
	"list":       "git loop list --all         # ended and fetched loops too",
	"pause":      "git loop pause fix-login    # the agent may stop until the loop is resumed",
	"resume":     "git loop resume fix-login --max-iterations 20   # paused at its limit: allow more\ngit loop resume --fresh     # hand the loop to a new agent session\ngit loop resume --from 5    # go on from iteration 5's snapshot",
	"cancel":     "git loop cancel fix-login   # its history stays on refs/loop/fix-login",
	"checkpoint": "git loop checkpoint         # record the worktree now as the next iteration",
	"approve":    "git loop approve fix-login  # the task is about those tests: allow what the last stop flagged",
	"check":      "git loop check --sequential # stop at the first failing gate",
	"run": `git loop run fix --promise DONE --gate 'test=go test ./...' \
    -p "Fix the failing tests in parser/; change only parser/." -- claude -p
git loop run -- codex exec                      # drive the worktree's loop again
git loop run -- aider --yes --message '{prompt}'`,
	"goal": `git config loop.evaluator 'claude -p --model haiku'   # once: who judges
git loop goal 'every call site compiles and the auth tests pass; no other test file changed'
git loop goal 'the README explains --judge' -- claude -p   # driven, as with run`,
	"import":  "git loop import .claude/ralph-loop.local.md --dry-run   # what would be carried over",
	"log":     "git loop log -n 20          # the newest 20 iterations\ngit loop log origin/fix --json",
	"show":    "git loop show               # the newest iteration\ngit loop show fix-login 7",
	"diff":    "git loop diff               # the last iteration against the one before\ngit loop diff 3 7",
	"report":  "git loop report             # Markdown, for a reviewer\ngit loop report fix --format html -o fix.html",
	"restore": "git loop restore 5          # the current worktree is recorded first",
	"bisect":  "git loop bisect -- go test ./parser/...\ngit loop bisect fix --good 2 -- sh -c 'make && ./smoke-test'\ngit loop bisect --judge      # the first iteration the evaluator judges unmet",
	"push":    "git loop push               # every loop, to origin\ngit loop push origin fix:fix-2   # loop fix as the remote's fix-2",
	"fetch":   "git loop fetch && git loop log origin/fix",
	"install": "git loop install claude     # .claude/settings.json of this project\ngit loop install codex --user\ngit loop install man        # the manual page, for man git-loop and git loop --help",
	"doctor":  "git loop doctor             # would each agent run git-loop's hooks here? what to do if not\ngit loop doctor --json",
	"init":    "git loop init --dry-run     # print the proposed .gitloop",
	"score":   "git loop score 'Fix Paginate in list.go; keep its API. Done when go test ./... passes.'\ngit loop score --file spec.md --json",
	"demo":    "go run . demo               # from a checkout of git-loop\ngit loop demo",
	"hook":    "git loop hook claude stop < payload.json   # what Claude Code runs at each stop",
	"maintenance": "git loop maintenance          # pack what loops wrote now, instead of in the background\n" +
		"git loop maintenance --json   # loose objects and packs, before and after",
}

// printHelp is urfave/cli's HelpPrinter for git-loop: `git loop help` lists the commands by
// group, as git's help does, and a command's help ends with its examples. Anything else
// (there is nothing else today) falls back to the framework's templates.
func printHelp(w io.Writer, templ string, data any) {
	switch d := data.(type) {
	case *cli.App:
		writeCommandIndex(w, d.Usage, d.Commands)
	case *cli.Command:
		writeCommandHelp(w, d)
	default:
		cli.HelpPrinterCustom(w, templ, data, nil)
	}
}

// writeCommandIndex is `git loop help`: every command by group, in commandGroups' order.
func writeCommandIndex(w io.Writer, usage string, cmds []*cli.Command) {
	fmt.Fprintf(w, "usage: git loop <command> [<args>]\n\n%s\n", wrapText(usage, 0, helpWidth))
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, group := range commandGroups {
		fmt.Fprintf(w, "\n%s\n", group)
		for _, c := range cmds {
			if c.Category == group && !c.Hidden {
				fmt.Fprintf(w, "   %-*s  %s\n", width, c.Name, wrapText(c.Usage, 3+width+2, helpWidth))
			}
		}
	}
	fmt.Fprint(w, "\n`git loop help <command>` shows a command's options and examples. `man git-loop` (or\n"+
		"`git loop --help`) is the manual, which git-loop writes beside itself (`git loop install man`\n"+
		"says where).\n")
}

// writeCommandHelp is `git loop help COMMAND`: its usage line, what it does, its options and
// its examples.
func writeCommandHelp(w io.Writer, c *cli.Command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", commandSynopsis(c), wrapText(c.Usage, 0, helpWidth))
	for _, para := range paragraphs(c.Description) {
		fmt.Fprintf(w, "\n%s\n", wrapText(para, 0, helpWidth))
	}
	if opts := flagDocs(c.Flags); len(opts) > 0 {
		width := 0
		for _, o := range opts {
			if n := len(o.String()); n <= 28 {
				width = max(width, n)
			}
		}
		fmt.Fprint(w, "\noptions:\n")
		for _, o := range opts {
			if len(o.String()) > width {
				fmt.Fprintf(w, "   %s\n   %*s  %s\n", o, width, "", wrapText(o.usage, 3+width+2, helpWidth))
				continue
			}
			fmt.Fprintf(w, "   %-*s  %s\n", width, o, wrapText(o.usage, 3+width+2, helpWidth))
		}
	}
	if ex := examples[c.Name]; ex != "" {
		fmt.Fprintf(w, "\nexamples:\n   %s\n", strings.ReplaceAll(ex, "\n", "\n   "))
	}
}

// commandSynopsis is a command's usage line: git loop NAME [options] ARGS.
func commandSynopsis(c *cli.Command) string {
	if args := commandArgs(c); args != "" {
		return "git loop " + c.Name + " " + args
	}
	return "git loop " + c.Name
}

// commandArgs is what a command takes after its name: [options] ARGS.
func commandArgs(c *cli.Command) string {
	var args []string
	if len(flagDocs(c.Flags)) > 0 {
		args = append(args, "[options]")
	}
	if c.ArgsUsage != "" {
		args = append(args, c.ArgsUsage)
	}
	return strings.Join(args, " ")
}

// flagDoc is one option as help and the man page show it.
type flagDoc struct {
	names       []string // as typed, short ones first: -p, --prompt
	placeholder string   // its value's: PROMPT; "" for a switch
	usage       string   // what it does, with its default
}

// String is the option as help lists it: "-p, --prompt PROMPT".
func (d flagDoc) String() string {
	s := strings.Join(d.names, ", ")
	if d.placeholder != "" {
		s += " " + d.placeholder
	}
	return s
}

// flagDocs describes flags for help, leaving out --help and hidden flags: short names first as git writes
// them, the value's placeholder from the `QUOTED` word of the usage (else the flag's name in
// capitals), and the default when there is one worth saying (not for switches, not a zero).
func flagDocs(flags []cli.Flag) []flagDoc {
	var docs []flagDoc
	for _, f := range flags {
		df, ok := f.(cli.DocGenerationFlag)
		if vf, canHide := f.(cli.VisibleFlag); !ok || f == cli.HelpFlag || canHide && !vf.IsVisible() {
			continue
		}
		names := f.Names()
		placeholder, usage := unquoteUsage(df.GetUsage())
		var dashed []string
		for _, n := range names[1:] { // aliases, the short ones first
			if len(n) == 1 {
				dashed = append(dashed, "-"+n)
			}
		}
		dashed = append(dashed, "--"+names[0])
		for _, n := range names[1:] {
			if len(n) > 1 {
				dashed = append(dashed, "--"+n)
			}
		}
		doc := flagDoc{names: dashed, usage: usage}
		if df.TakesValue() {
			if placeholder == "" {
				placeholder = strings.ToUpper(names[0])
			}
			doc.placeholder = placeholder
			if _, slice := f.(cli.DocGenerationSliceFlag); slice && !strings.Contains(usage, "repeatable") {
				doc.usage += " (repeatable)"
			}
			if def := defaultText(df); def != "" {
				doc.usage += " (default: " + def + ")"
			}
		}
		docs = append(docs, doc)
	}
	return docs
}

// defaultText is a flag's default as help shows it: its DefaultText, else its value unless
// that is a zero, with durations written short (30m, not 30m0s).
func defaultText(f cli.DocGenerationFlag) string {
	def := f.GetDefaultText()
	if _, slice := f.(cli.DocGenerationSliceFlag); slice {
		return ""
	}
	switch def {
	case "", "0", "0s", "false":
		return ""
	}
	if strings.HasSuffix(def, "m0s") {
		def = strings.TrimSuffix(def, "0s")
	}
	if strings.HasSuffix(def, "h0m") {
		def = strings.TrimSuffix(def, "0m")
	}
	return def
}

// unquoteUsage takes the `QUOTED` placeholder out of a flag's usage, as urfave/cli does.
func unquoteUsage(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// paragraphs splits a command's Description at blank lines; a single newline inside a
// paragraph is only a space, so help and the man page wrap it to their own width.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// wrapText wraps text, which starts at column indent, to lines of at most width columns;
// continuation lines are indented to indent.
func wrapText(text string, indent, width int) string {
	var b strings.Builder
	col := indent
	for i, word := range strings.Fields(text) {
		n := len([]rune(word))
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col = indent
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}
