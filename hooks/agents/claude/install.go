package claude

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop/report"
)

// Claude Code reads hooks from its settings files (code.claude.com/docs/en/settings): the
// user's (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json) and the project's
// (<project>/.claude/settings.json, committed). Their shape:
//
//	{"hooks": {"Stop": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": 660}]}]}}
//
// Stop, SubagentStop and SessionStart groups need no matcher (SessionStart's would filter
// on its source; without one every source runs it). timeout is in seconds.

// hookFile is the hooks install merges into a settings file. Stop runs the loop's gates,
// so install gives it the timeout the worktree's gates need (kit.Agent.InstallHookFile);
// SessionStart answers at once. A hook that times out is cancelled and the agent stops.
var hookFile = kit.HookFile{Product: "Claude Code", Grouped: true, CommandKeys: []string{"command"}, Hooks: []kit.FileHook{
	grouped("Stop", "git-loop hook claude stop", kit.StopTimeout),
	grouped("SubagentStop", "git-loop hook claude subagent-stop", kit.StopTimeout),
	grouped("SessionStart", "git-loop hook claude session-start", 60),
}}

// grouped is a hook in its own group, without a matcher: Stop, SubagentStop and SessionStart
// need none (SessionStart's would filter on its source; without one every source runs it).
func grouped(event, command string, timeout int) kit.FileHook {
	return kit.FileHook{Event: event, Command: command, Entry: kit.HookGroup{Hooks: []kit.HookCommand{{Type: "command", Command: command, Timeout: timeout}}}}
}

// projectSettings is the project settings file of the worktree at dir.
func projectSettings(dir string) string {
	return filepath.Join(dir, ".claude", "settings.json")
}

// userSettings is the user's settings file: $CLAUDE_CONFIG_DIR/settings.json when that is
// set (Claude Code honours it), else ~/.claude/settings.json.
func userSettings(home string) string {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "settings.json")
	}
	return filepath.Join(home, ".claude", "settings.json")
}

// mergeHooks returns doc with git-loop's missing hooks added, what it added and what was
// present. name names the file in errors.
func mergeHooks(doc []byte, name string) (out []byte, added, present []string, err error) {
	return kit.MergeHooks(doc, name, hookFile)
}

// --- the /git-loop slash command ---

// SlashArgsEnd is the line the /git-loop command writes after the arguments it passes to
// `git-loop start --slash-args=-`: without it, the arguments were cut short.
const SlashArgsEnd = "GIT_LOOP_END_OF_ARGUMENTS"

// slashCommandName is the name of the slash command installSlashCommand writes. It is not
// "loop": a project command of that name would hide Claude Code's own /loop.
const slashCommandName = "git-loop"

// slashCommand starts a loop from inside Claude Code. The "```!" block runs before the
// prompt reaches the model, with $ARGUMENTS and ${CLAUDE_SESSION_ID} substituted by Claude
// Code; allowed-tools lets it run without a permission prompt. The arguments go through a
// quoted here-document, so no character the user types (quotes, $, backticks) reaches the
// shell as syntax: git-loop reads them with --slash-args and splits them itself
// (ParseSlashArgs), taking the ralph-loop plugin's forms (a quoted task,
// --completion-promise TEXT, --max-iterations N) and start's own options. Errors go to
// standard output too, so the model sees them and can show them. When ${CLAUDE_SESSION_ID} is
// not substituted (older Claude Code) the shell expands it to nothing and git-loop falls back
// to $CLAUDE_CODE_SESSION_ID.
//
// Claude Code substitutes $ARGUMENTS as text, so arguments holding a line of three
// backquotes end the block early, and a line GIT_LOOP_ARGS ends the here-document early.
// Either way the line SlashArgsEnd does not reach git-loop, which then refuses to start,
// and "|| exit" keeps the shell from running what followed the early end as commands.
const slashCommand = `---
description: Start a git-loop loop on a task; the project's gates decide when it is done
argument-hint: "TASK [--completion-promise TEXT] [--max-iterations N] [--gate NAME=CMD]"
allowed-tools: Bash(git-loop start:*)
disable-model-invocation: true
---

` + "```!" + `
git-loop start --session="${CLAUDE_SESSION_ID}" --slash-args=- 2>&1 <<'GIT_LOOP_ARGS' || exit
$ARGUMENTS
` + SlashArgsEnd + `
GIT_LOOP_ARGS
` + "```" + `

If the output above does not say "loop ... started", no loop is running: show the user
exactly what git-loop printed (it says how to fix it) and stop, without working on the task.

Otherwise git-loop has started a loop; the output above gives its task and what completes it.
Work on the task now.

Each time you stop, git-loop snapshots the worktree and runs the project's gates. Until the
loop completes it sends you back with the task and what still fails, so finish the work for
real. If the loop has a promise, write it as <promise>PHRASE</promise> only when it is true.
`

// slashCommandPath is where installSlashCommand writes the command for projectDir.
func slashCommandPath(projectDir string) string {
	return filepath.Join(projectDir, ".claude", "commands", slashCommandName+".md")
}

// oldSlashCommandPath is where earlier versions wrote it, as /loop.
func oldSlashCommandPath(projectDir string) string {
	return filepath.Join(projectDir, ".claude", "commands", "loop.md")
}

// installSlashCommand writes <projectDir>/.claude/commands/git-loop.md, a /git-loop command
// that starts a loop from inside Claude Code. A file that is already git-loop's (line
// endings aside) is left as it is; one that differs (the user's own, or edited) is never
// overwritten: the result's Kept says so. A .claude/commands/loop.md that an earlier
// git-loop wrote (byte for byte one of its versions, line endings aside) is removed, as it
// hid Claude Code's own /loop; any other loop.md is left alone.
func installSlashCommand(projectDir string) (kit.InstallResult, error) {
	path := slashCommandPath(projectDir)
	res := kit.InstallResult{Path: path}
	what := "the /" + slashCommandName + " command"
	have, err := os.ReadFile(path)
	switch {
	case err == nil:
		if sameText(have, slashCommand) {
			res.Present = append(res.Present, what)
		} else {
			res.Kept = fmt.Sprintf("%s exists and differs from git-loop's %s; it was left as it is (remove it and install again to get git-loop's)", path, what)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return res, fmt.Errorf("hooks: read %s: %w", path, err)
	default:
		if _, err := os.Lstat(path); err == nil { // a dangling symlink: not ours to replace
			res.Kept = fmt.Sprintf("%s is a symlink to a missing file; it was left as it is", path)
			break
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return res, fmt.Errorf("hooks: create %s: %w", filepath.Dir(path), err)
		}
		if err := report.ReplaceFile(path, []byte(slashCommand), 0o644); err != nil {
			return res, fmt.Errorf("hooks: %w", err)
		}
		res.Created = true
		res.Added = append(res.Added, what)
	}
	return res, removeOldSlashCommand(projectDir, &res)
}

// removeOldSlashCommand removes the /loop command an earlier git-loop wrote, and notes a
// loop.md that runs git-loop but is not one of its versions (an edited copy).
func removeOldSlashCommand(projectDir string, res *kit.InstallResult) error {
	old := oldSlashCommandPath(projectDir)
	fi, err := os.Lstat(old)
	if err != nil || !fi.Mode().IsRegular() { // absent, or a symlink or directory: the user's
		return nil
	}
	have, err := os.ReadFile(old)
	if err != nil {
		return fmt.Errorf("hooks: read %s: %w", old, err)
	}
	for _, v := range legacySlashCommands {
		if sameText(have, v) {
			if err := os.Remove(old); err != nil {
				return fmt.Errorf("hooks: remove git-loop's old /loop command: %w", err)
			}
			res.Removed = append(res.Removed, fmt.Sprintf("%s: git-loop's old /loop command, which hid Claude Code's own /loop (it is /%s now)", old, slashCommandName))
			return nil
		}
	}
	if bytes.Contains(have, []byte("git-loop start")) {
		res.Note = fmt.Sprintf("%s runs git-loop but is not a copy git-loop wrote, so it was left as it is; it hides Claude Code's own /loop: remove it if /%s replaces it", old, slashCommandName)
	}
	return nil
}

// sameText reports whether a file holds text, line endings aside (git on Windows may check
// it out with CRLF).
func sameText(file []byte, text string) bool {
	return bytes.Equal(bytes.ReplaceAll(file, []byte("\r\n"), []byte("\n")), []byte(text))
}

// settingsFiles are the settings files Claude Code reads hooks from: the project's,
// its local ones and the user's.
func settingsFiles(dir string) []string {
	files := []string{projectSettings(dir), filepath.Join(dir, ".claude", "settings.local.json")}
	if home, err := os.UserHomeDir(); err == nil || os.Getenv("CLAUDE_CONFIG_DIR") != "" {
		files = append(files, userSettings(home))
	}
	return files
}

// doctorFiles are Claude Code's settings files that may hold git-loop's hooks: the one
// install writes, the project's or the user's (settings.local.json is the person's own).
func doctorFiles(dir, home string, user bool) []string {
	if !user {
		return []string{projectSettings(dir)}
	}
	return []string{userSettings(home)}
}

// installCommand adds the /git-loop slash command to the project (not for the user).
func installCommand(dir string, user bool) ([]kit.InstallResult, error) {
	if user {
		return nil, nil
	}
	res, err := installSlashCommand(dir)
	if err != nil {
		return nil, err
	}
	return []kit.InstallResult{res}, nil
}
