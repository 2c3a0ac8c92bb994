package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/driver"
	"github.com/git-loop/git-loop/loop/report"
	"github.com/git-loop/git-loop/loop/review"
	"github.com/git-loop/git-loop/loop/share"
)

// The CLI's shared plumbing, which every command's file (main_NAME.go) may use and none
// declares for another: exit codes and the one map of errors to them, the command line's
// parsing before and around urfave/cli, the flags several commands take, opening the store,
// and the output helpers (JSON is textutil.WriteJSON). TestCommandFilesStandAlone keeps a
// command's file from using another's.

// Exit codes, documented in README.md. exitCode is the one place errors map to them.
const (
	exitOK          = 0
	exitFailure     = 1 // anything unexpected: I/O, git objects, internal errors
	exitUsage       = 2 // bad flags, loop names or configuration
	exitNoLoop      = 3 // the loop does not exist, or none is active here
	exitConflict    = 4 // busy worktree, existing name, ended loop, held lock
	exitUnsupported = 5 // not a repository, bare, reftable, sha256
	// exitPaused: the loop run drove stopped without completing (paused by a limit, a
	// breaker or a person, or cancelled): it needs a person. Its own code, not exitUsage's, so
	// a script can tell "the loop needs a person" from "my flags are wrong".
	exitPaused = 6
	// exitInterrupted: an interrupted run or bisect (the shell's code for SIGINT).
	exitInterrupted = 130
)

// exitCode maps an error to the documented exit code.
func exitCode(err error) int {
	var usage usageError
	switch {
	case errors.Is(err, driver.ErrRunPaused):
		return exitPaused
	case errors.Is(err, loop.ErrInterrupted):
		return exitInterrupted
	case errors.Is(err, loop.ErrUntrusted), errors.Is(err, loop.ErrFetched), errors.Is(err, loop.ErrNoRemote):
		return exitUsage
	case errors.Is(err, share.ErrRejected):
		return exitConflict
	case errors.As(err, &usage), errors.Is(err, loop.ErrBadName), errors.Is(err, loop.ErrConfig), errors.Is(err, hooks.ErrUnknownAgent),
		errors.Is(err, hooks.ErrHookFile):
		return exitUsage
	case errors.Is(err, review.ErrBisectRange), errors.Is(err, review.ErrBisectAborted): // "no failure to find", or the command broke
		return exitFailure
	case errors.Is(err, loop.ErrNoLoop), errors.Is(err, loop.ErrNoIteration):
		return exitNoLoop
	case errors.Is(err, loop.ErrBusy), errors.Is(err, loop.ErrExists), errors.Is(err, loop.ErrEnded), errors.Is(err, loop.ErrNotActive),
		errors.Is(err, loop.ErrRestoreConflict),
		errors.Is(err, loop.ErrLimit), errors.Is(err, loop.ErrWorktreeGone), errors.Is(err, loop.ErrRefLocked),
		errors.Is(err, loop.ErrMaintenanceRunning):
		return exitConflict
	case errors.Is(err, loop.ErrNotRepo), errors.Is(err, loop.ErrBare), errors.Is(err, loop.ErrReftable),
		errors.Is(err, loop.ErrSHA256), errors.Is(err, loop.ErrFormat):
		return exitUnsupported
	}
	return exitFailure
}

// usageError marks a command-line mistake.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// version is git-loop's version as the Go toolchain recorded it: the module version of a
// `go install …@v1.2.3`, else the commit a checkout was built from (when the build kept it).
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel " + rev
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	help := "`git loop help`"
	if c != nil && c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
		help = "`git loop help " + c.Command.Name + "`"
	}
	return usageError{msg: flagMessage(err.Error()) + "; see " + help}
}

// flagMessage rewrites the flag package's messages in the spelling users type: "--name"
// for a long flag (the package writes "-name"), and no "parse error" jargon.
func flagMessage(msg string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + dashed(name)
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if value, flag, ok := strings.Cut(rest, " for flag -"); ok {
			flag, _, _ = strings.Cut(flag, ":")
			return "invalid value " + value + " for " + dashed(flag)
		}
	}
	return msg
}

// dashed is a flag's name as typed: -p, --max-iterations.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagsFirst lets flags follow positional arguments (`git loop start NAME -p TASK`), as git
// users expect: urfave/cli v2 stops at the first positional argument, so for a known command
// the flags (with their values) are moved before the positionals. "--" ends flag parsing.
func flagsFirst(cmds []*cli.Command, args []string) ([]string, error) {
	if len(args) < 3 {
		return args, nil
	}
	var cmd *cli.Command
	for _, c := range cmds {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil {
		return args, nil
	}
	var flags, positional []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			positional = append(positional, rest[i:]...)
			i = len(rest)
		case len(a) > 1 && a[0] == '-':
			if takesValue(cmd, a) && i+1 == len(rest) {
				return nil, usageError{msg: fmt.Sprintf("flag %s needs a value; see `git loop help %s`", a, cmd.Name)}
			}
			flags = append(flags, a)
			if takesValue(cmd, a) {
				flags = append(flags, rest[i+1])
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	return append(out, positional...), nil
}

// takesValue reports whether flag arg (like "-p" or "--gate", without "=value") of cmd
// consumes the next argument.
func takesValue(cmd *cli.Command, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

// asksHelp reports whether a command's arguments ask for its help (-h, --help), which run
// and bisect answer without the command they otherwise need after "--".
func asksHelp(args []string) bool {
	for _, a := range args[min(2, len(args)):] {
		if a == "-h" || a == "--help" {
			return true
		}
	}
	return false
}

// checkPromiseArgs refuses a --promise (or --completion-promise) that is not valid UTF-8
// before the flag package sees it: urfave/cli hands such a value on with U+FFFD in place of
// the bad bytes, and a promise no one typed would be recorded.
func checkPromiseArgs(args []string) error {
	for i, a := range args {
		if a == "--" {
			return nil
		}
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "promise" && name != "completion-promise") {
			continue
		}
		if !inline && i+1 < len(args) {
			value = args[i+1]
		}
		if !utf8.ValidString(value) {
			return usageError{msg: fmt.Sprintf("--%s %q is not valid UTF-8, so no agent message can hold it; retype the phrase", name, value)}
		}
	}
	return nil
}

// readOnly names the commands that only read the loop: an interrupt may just end them, as it
// ends git log, so they skip interruptible, whose signal thread costs a third of a
// millisecond at start-up (status, timed against git cat-file, is issue 2's target).
var readOnly = map[string]bool{"status": true, "list": true, "log": true, "show": true, "diff": true, "score": true}

// interruptible is a context cancelled by SIGINT or SIGTERM (an agent killing its hook, or
// Ctrl-C), so running gates' process groups are killed instead of outliving git-loop.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// noAutoManEnv, set to anything, keeps git-loop from writing its manual page by itself
// (ensureManPage); the tests set it, since their git-loop shares one directory.
const noAutoManEnv = "GIT_LOOP_NO_AUTO_MAN"

// agentArgsKey carries run's agent command (everything after --) past the flag parser,
// which would otherwise read the agent's own flags as git-loop's.
type agentArgsKey struct{}

// splitAgent takes the command off a `run` or `bisect` command line: args up to "--" go to
// the CLI parser, the rest is the agent (or bisect's test). ok is false when there is no "--".
func splitAgent(args []string) (cliArgs, agent []string, ok bool) {
	if len(args) < 2 || (args[1] != "run" && args[1] != "bisect" && args[1] != "goal") {
		return args, nil, true
	}
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, args[1] == "goal" // goal without an agent runs in the agent's session
}

// withAgentArgs puts run's agent command in ctx.
func withAgentArgs(ctx context.Context, agent []string) context.Context {
	return context.WithValue(ctx, agentArgsKey{}, agent)
}

// agentArgs is the command after "--" of run, goal or bisect (withAgentArgs); nil without one.
func agentArgs(c *cli.Context) []string {
	agent, _ := c.Context.Value(agentArgsKey{}).([]string)
	return agent
}

// commandMissing is the usage error of a run or bisect command line without "--" (args as
// given, the command at args[1]); nil for bisect --judge, which needs no command.
func commandMissing(args []string) error {
	if args[1] == "bisect" && slices.Contains(args, "--judge") {
		return nil
	}
	return missingCommand(args[1])
}

// missingCommand is the usage error of a run or bisect (command) without "--".
func missingCommand(command string) error {
	if command == "bisect" {
		return usageError{msg: "bisect needs the test command after --, e.g. `git loop bisect -- go test ./...`"}
	}
	return usageError{msg: "run needs the agent command after --, e.g. `git loop run -p 'fix the tests' -- claude -p`"}
}

// jsonFlag is --json, which every command with an output a script reads takes.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON"}

// trustFlag lets check, resume, run and bisect use a fetched loop's stored gate commands.
var trustFlag = &cli.BoolFlag{Name: "trust", Usage: "run a fetched loop's (REMOTE/NAME) stored gate commands, which someone else wrote"}

// Flags of start (shaping), which run, goal and import take too.
var (
	shapeFlag = &cli.StringFlag{Name: "shape", Usage: "run as `SHAPE`: tool (unattended) or colleague (pausing at checkpoints for a person)", DefaultText: "tool, or loop.shape"}
	forceFlag = &cli.BoolFlag{Name: "force", Usage: "accepted for old scripts; the spec score never refuses a loop", Hidden: true}
)

// startFlags are start's flags, which run and goal take too to start a loop.
func startFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "the task given to the agent"},
		&cli.StringFlag{Name: "prompt-file", Usage: "read the prompt from `FILE` (- for standard input)"},
		&cli.IntFlag{Name: "max-iterations", Usage: "stop after `N` iterations, at most 100000 (0 needs --unlimited)", DefaultText: "10, or loop.maxIterations"},
		&cli.BoolFlag{Name: "unlimited", Usage: "allow a loop without an iteration limit"},
		&cli.StringSliceFlag{Name: "promise", Aliases: []string{"completion-promise"}, Usage: "completion `PHRASE` the agent writes as <promise>PHRASE</promise>"},
		&cli.StringSliceFlag{Name: "gate", Usage: "gate `NAME=CMD`, in order (repeatable)"},
		&cli.StringSliceFlag{Name: "judge", Usage: "`CONDITION` in words the evaluator (loop.evaluator) must judge met once the gates pass (repeatable)"},
		&cli.StringFlag{Name: "exit", Usage: "exit `POLICY`: both, gates, promise or either"},
		&cli.StringFlag{Name: "session", Usage: "bind the loop to agent session `ID` (default $CLAUDE_CODE_SESSION_ID)"}, shapeFlag, forceFlag,
	}
}

// nameFlag is --name, the loop's name as a flag: start's (beside its NAME argument), goal's
// and /git-loop's, which take no NAME argument.
func nameFlag() cli.Flag {
	return &cli.StringFlag{Name: "name", Usage: "name the loop `NAME` (default: after the branch)"}
}

// driveFlags are the flags of driving an agent, which run and goal take.
func driveFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "timeout", Usage: "kill an agent run after `DURATION`", Value: driver.DefaultAgentTimeout},
		&cli.IntFlag{Name: "calls-per-hour", Usage: "run the agent at most `N` times in any hour (0: no limit)"},
		&cli.DurationFlag{Name: "cooldown", Usage: "wait `DURATION` between iterations"},
		&cli.BoolFlag{Name: "sequential", Usage: "run gates one after another, stopping at the first failure"},
	}
}

// oneName returns the optional NAME argument, refusing extra arguments.
func oneName(c *cli.Context) (string, error) {
	if c.NArg() > 1 {
		return "", usageError{msg: fmt.Sprintf("%s takes at most one loop name, got %d arguments", c.Command.Name, c.NArg())}
	}
	if c.NArg() == 1 && c.Args().First() == "" {
		return "", usageError{msg: "the loop name is empty; give a name, or none to use the default"}
	}
	return c.Args().First(), nil
}

// nameAndIterations splits [NAME] [ITER…]: numbers are iterations (at most max), a first
// argument that is not a number is the loop's name. Missing iterations are loop.Latest.
func nameAndIterations(c *cli.Context, max int) (string, []int, error) {
	args := c.Args().Slice()
	name := ""
	if len(args) > 0 {
		if _, err := strconv.Atoi(args[0]); err != nil || len(args) > max {
			name, args = args[0], args[1:]
		}
	}
	if len(args) > max {
		return "", nil, usageError{msg: fmt.Sprintf("%s takes a loop name and at most %d iteration numbers", c.Command.Name, max)}
	}
	iters := make([]int, max)
	for i := range iters {
		iters[i] = review.Latest
	}
	for i, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return "", nil, usageError{msg: fmt.Sprintf("%q is not an iteration number; see `git loop log` for them", a)}
		}
		iters[i] = n
	}
	return name, iters, nil
}

// readFlagFile reads the file a flag names (- for standard input), at most 1 MiB.
func readFlagFile(c *cli.Context, flag string) (string, error) {
	p := c.String(flag)
	var data []byte
	var err error
	if p == "-" {
		data, err = io.ReadAll(io.LimitReader(c.App.Reader, 1<<20))
	} else {
		data, err = os.ReadFile(p)
	}
	if err != nil {
		return "", usageError{msg: fmt.Sprintf("read --%s: %v", flag, err)}
	}
	return string(data), nil
}

// startSettings reads the flags start, run and import share (all but the prompt file): the
// settings they override and the agent session to bind (default $CLAUDE_CODE_SESSION_ID).
// --force is accepted and changes nothing: the spec score never refuses a loop.
func startSettings(c *cli.Context) (f loop.Settings, session string, err error) {
	f.Prompt, f.Exit, f.Promises, f.Unlimited = c.String("prompt"), c.String("exit"), c.StringSlice("promise"), c.Bool("unlimited")
	f.Shape = c.String("shape")
	if c.IsSet("max-iterations") {
		n := c.Int("max-iterations")
		f.MaxIterations = &n
	}
	f.Judges = c.StringSlice("judge")
	for _, g := range c.StringSlice("gate") {
		gate, err := loop.ParseGateFlag(g)
		if err != nil {
			return f, "", err
		}
		f.Gates = append(f.Gates, gate)
	}
	session = c.String("session")
	if session == "" {
		session = os.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	return f, session, nil
}

// startOptions turns start's flags into loop.StartOptions for the loop name, with task (when
// not "") as the prompt.
func startOptions(c *cli.Context, name, task string) (loop.StartOptions, error) {
	opts := loop.StartOptions{Name: name}
	var err error
	if opts.Flags, opts.Session, err = startSettings(c); err != nil {
		return opts, err
	}
	f := &opts.Flags
	if task != "" {
		f.Prompt = task
	}
	if p := c.String("prompt-file"); p != "" {
		if f.Prompt != "" {
			return opts, usageError{msg: "give the prompt with -p or --prompt-file, not both"}
		}
		text, err := readFlagFile(c, "prompt-file")
		if err != nil {
			return opts, err
		}
		f.Prompt = text
	}
	return opts, nil
}

// parseStart turns run's optional NAME and start's flags into loop.StartOptions.
func parseStart(c *cli.Context) (loop.StartOptions, error) {
	name, err := oneName(c)
	if err != nil {
		return loop.StartOptions{}, err
	}
	return startOptions(c, name, "")
}

// driveOptions turns the drive flags into driver.DriveOptions for loop name and agent.
func driveOptions(c *cli.Context, name string, agent []string, errOut io.Writer) (driver.DriveOptions, error) {
	opts := driver.DriveOptions{Name: name, Agent: agent, Timeout: c.Duration("timeout"), CallsPerHour: c.Int("calls-per-hour"),
		Cooldown: c.Duration("cooldown"), Sequential: c.Bool("sequential"), Status: errOut, Live: isTerminal(errOut), AgentStderr: errOut}
	switch {
	case c.Int("calls-per-hour") < 0:
		return opts, usageError{msg: "--calls-per-hour must be 0 (no limit) or more"}
	case c.Duration("timeout") <= 0:
		return opts, usageError{msg: "--timeout must be more than 0, e.g. --timeout 30m"}
	case c.Duration("cooldown") < 0:
		return opts, usageError{msg: "--cooldown must be 0 or more, e.g. --cooldown 30s"}
	}
	return opts, nil
}

// setFlags names the flags of list given on the command line: "--gate, --promise".
func setFlags(c *cli.Context, list []cli.Flag) string {
	var set []string
	for _, f := range list {
		name := f.Names()[0]
		if c.IsSet(name) {
			set = append(set, "--"+name)
		}
	}
	return strings.Join(set, ", ")
}

// withStore opens the repository of the current directory (or $GIT_DIR's, as git would)
// and runs fn on its loop store: the one place a command opens it, with the report a
// completed or stopped loop's final commit carries wired in (report.OpenStoreFromEnv, as
// the hooks and the driver use report.OpenStore).
func withStore(fn func(*loop.Store) error) error {
	s, err := report.OpenStoreFromEnv(".")
	if err != nil {
		return err
	}
	return fn(s)
}

// withLoop runs fn on the loop named by the optional NAME argument, or this worktree's.
func withLoop(c *cli.Context, fn func(s *loop.Store, name string) error) error {
	name, err := oneName(c)
	if err != nil {
		return err
	}
	return withStore(func(s *loop.Store) error {
		name, err := s.Resolve(name)
		if err != nil {
			return err
		}
		return fn(s, name)
	})
}

// withRecent runs fn on loop name, or, for a reading command given none, the loop active in
// this worktree or else the last one that ran here (loop.Store.ResolveRecent).
func withRecent(name string, fn func(s *loop.Store, name string) error) error {
	return withStore(func(s *loop.Store) error {
		name, err := s.ResolveRecent(name)
		if err != nil {
			return err
		}
		return fn(s, name)
	})
}

// withHistory opens the history of loop name (or this worktree's active or latest loop).
func withHistory(name string, fn func(*loop.History) error) error {
	return withRecent(name, func(s *loop.Store, name string) error {
		h, err := s.OpenHistory(name)
		if err != nil {
			return err
		}
		return fn(h)
	})
}

// isTerminal reports whether w is a terminal (a character device), where run redraws one
// status line instead of printing plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// useColor: colour only on a terminal, and never with NO_COLOR set (no-color.org).
func useColor(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	return isTerminal(w)
}

// startAndPrint starts a loop and prints it as start does: its state (or JSON), then its shape.
// The state is nil after JSON, which says everything.
func startAndPrint(out io.Writer, s *loop.Store, opts loop.StartOptions, asJSON bool) (*loop.State, error) {
	st, err := s.Start(opts)
	if err != nil {
		return nil, err
	}
	if err := review.PrintState(out, st, asJSON, "started"); err != nil || asJSON {
		return nil, err
	}
	return st, printShapeOf(out, s, st.Name)
}

// printShapeOf writes how a new loop runs, from its spec's score.
func printShapeOf(out io.Writer, s *loop.Store, name string) error {
	_, cfg, err := s.Status(name)
	if err != nil {
		return err
	}
	review.PrintExit(out, cfg)
	loop.PrintShape(out, cfg)
	return nil
}

// printNextStep writes, after a new loop's state, who will work on it: the agents whose
// git-loop hooks are installed and would run in its worktree, or how to install one, and
// the driver (hooks.DoctorReport.NextStep).
func printNextStep(out io.Writer, st *loop.State) error {
	_, err := fmt.Fprint(out, hooks.Doctor(st.Worktree).NextStep())
	return err
}
