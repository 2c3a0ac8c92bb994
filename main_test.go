package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) {
	realagents.MarkSuite()
	quickRaceExit()
	testscript.Main(afterRun{m, realagents.RemoveBuild}, map[string]func(){
		"git-loop": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// afterRun runs the tests, then cleans up what they left for the whole process (the
// git-loop binary the real-agent tests built), and fails when a process the suite started
// still runs (see leftovers).
type afterRun struct {
	m       *testing.M
	cleanup func()
}

func (a afterRun) Run() int {
	defer a.cleanup()
	return realagents.CheckLeftovers(a.m.Run())
}

// TestScripts runs the end-to-end scenarios in testdata/script, one behaviour per file.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		Setup:               hermeticGit,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitcode, "gitdaemon": cmdGitDaemon, "suggested": cmdSuggested, "slashcommand": cmdSlashCommand, "packed": cmdPacked},
		RequireExplicitExec: false,
		Condition:           scriptCondition,
	})
}

// hermeticGit gives every script its own HOME and git configuration, so the developer's
// settings never leak into a test.
func hermeticGit(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o777); err != nil {
		return err
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	// maintenance off: a roll-up a script's iteration started in the background would still
	// be writing in the script's repository as testscript removes it (maintenance_*.txtar
	// turn it on).
	cfg := "[user]\n\tname = Loop Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[maintenance]\n\tauto = false\n"
	if err := os.WriteFile(gitconfig, []byte(cfg), 0o666); err != nil {
		return err
	}
	if raceEnabled {
		// Under -race the test binary, which scripts would run as git-loop, is several times
		// slower at every command: scripts check behaviour, so they run git-loop as a person
		// does, built plainly from the same source (the packages' own tests, including the
		// concurrent ones, keep the race detector).
		exe, _, err := realagents.GitLoop(".")
		if err != nil {
			return err
		}
		env.Setenv("PATH", filepath.Dir(exe)+string(os.PathListSeparator)+env.Getenv("PATH"))
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL": gitconfig, "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
		"TZ": "UTC", "NO_COLOR": "1", "CLAUDE_CODE_SESSION_ID": "",
		// Every script's git-loop is one executable in one directory: a page written beside
		// it would be one script's output in another's (install_man_auto turns it back on).
		noAutoManEnv: "1",
		// Go's caches stay the developer's: a cold build cache makes the demo's go gates slow.
		"GOCACHE": goEnv("GOCACHE"), "GOMODCACHE": goEnv("GOMODCACHE"),
	} {
		env.Setenv(k, v)
	}
	toolchainEnv(env)
	env.Setenv(realagents.SuiteMarkEnv, os.Getenv(realagents.SuiteMarkEnv)) // testscript builds the scripts' environment anew
	return nil
}

// cmdExitcode runs `exitcode N cmd args…` and fails unless cmd exits with status N; its
// stdout and stderr are kept for the following stdout/stderr checks. Hook exit codes are
// protocol, so scripts check them exactly.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		got = exitErr.ExitCode()
	case err != nil:
		ts.Fatalf("exitcode: run %s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// suggestedCommand finds the command a pause names for going on: the first `git loop resume
// …` in the hook's answer or a refusal, or status's "continue:  git loop …" line.
var suggestedCommand = regexp.MustCompile("`(git loop resume [^`]+)`|continue: +(git loop [^,\n]+)")

// cmdSuggested runs `suggested`: the command that the previous command's output (stdout, then
// stderr) names to go on from a pause, which must exist and succeed. Every pause names one,
// and it must work (a resume at a limit must raise it).
func cmdSuggested(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: suggested")
	}
	var m []string
	for _, out := range []string{ts.ReadFile("stdout"), ts.ReadFile("stderr")} {
		if m = suggestedCommand.FindStringSubmatch(out); m != nil {
			break
		}
	}
	if m == nil {
		ts.Fatalf("suggested: the output names no command to go on with")
	}
	command := m[1] + m[2] // one of them matched
	words := strings.Fields(strings.TrimPrefix(command, "git loop "))
	ts.Logf("suggested: git-loop %s", strings.Join(words, " "))
	if err := ts.Exec("git-loop", words...); err != nil {
		ts.Fatalf("suggested command `%s` failed: %v", command, err)
	}
}

// slashBlock finds the block Claude Code runs in a command file, as Claude Code finds it:
// from "```!" to the next "```".
var slashBlock = regexp.MustCompile("```!\\s*\\n?([\\s\\S]*?)\\n?```")

// cmdSlashCommand runs `slashcommand ARGSFILE`: what Claude Code does with
// `/git-loop <the file's text>`: substitute the text for $ARGUMENTS (and a session id for
// ${CLAUDE_SESSION_ID}) in .claude/commands/git-loop.md, then run the command block with
// bash. Its exit status is not checked; its output is kept for stdout and stderr checks.
func cmdSlashCommand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: slashcommand ARGSFILE")
	}
	md := ts.ReadFile(".claude/commands/git-loop.md")
	md = strings.ReplaceAll(md, "$ARGUMENTS", strings.TrimSuffix(ts.ReadFile(args[0]), "\n"))
	md = strings.ReplaceAll(md, "${CLAUDE_SESSION_ID}", "s1")
	m := slashBlock.FindStringSubmatch(md)
	if m == nil {
		ts.Fatalf("slashcommand: no command block in git-loop.md")
	}
	ts.Exec("bash", "-c", m[1]) // the exit status is the block's; the script checks the output
}

// cmdPacked runs `packed`: it waits until the repository of the script's directory is
// packed (see realagents.AwaitPacked), as the roll-ups a loop's iterations start in the background
// leave it.
func cmdPacked(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: packed")
	}
	if err := realagents.AwaitPacked(ts.MkAbs(".")); err != nil {
		ts.Fatalf("packed: %v", err)
	}
}

var goEnvCache sync.Map

// goEnv is `go env NAME` of the process running the tests, asked once.
func goEnv(name string) string {
	if v, ok := goEnvCache.Load(name); ok {
		return v.(string)
	}
	out, err := exec.Command("go", "env", name).Output()
	v := strings.TrimSpace(string(out))
	if err != nil {
		v = ""
	}
	goEnvCache.Store(name, v)
	return v
}

// quickRaceExit stops the race detector's one-second wait at exit in the processes the tests
// start from this binary (the fault suite's git-loop): built with -race, every command would
// otherwise take a second longer, mostly asleep. A GORACE the developer set still wins.
func quickRaceExit() {
	os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
}
