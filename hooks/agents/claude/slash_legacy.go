package claude

// The /loop commands earlier versions of git-loop wrote to .claude/commands/loop.md, byte for
// byte. installSlashCommand removes a loop.md that is one of them (line endings aside): the
// name hid Claude Code's own /loop, and the command is /git-loop now. Any other loop.md is the
// user's and is never touched. Add the current text here whenever it changes.
var legacySlashCommands = []string{slashCommandV1, slashCommandV2}

// slashCommandV1 read the task from --prompt-file=/dev/stdin (issue 3).
const slashCommandV1 = `---
description: Start a git-loop loop on a task; the project's gates decide when it is done
argument-hint: TASK
allowed-tools: Bash(git-loop start:*)
disable-model-invocation: true
---

` + "```!" + `
git-loop start --session="${CLAUDE_SESSION_ID}" --prompt-file=/dev/stdin <<'GIT_LOOP_TASK'
$ARGUMENTS
GIT_LOOP_TASK
` + "```" + `

If the command above failed, show the user what it printed and stop: no loop is running.

Otherwise git-loop has started a loop for this task. Work on it now:

$ARGUMENTS

Each time you stop, git-loop snapshots the worktree and runs the project's gates. Until they
pass it sends you back with the task and what still fails, so finish the work for real. If the
loop has a promise, write it as <promise>PHRASE</promise> only when it is true.
`

// slashCommandV2 read the task from --prompt-file=- (issue 3, later).
const slashCommandV2 = `---
description: Start a git-loop loop on a task; the project's gates decide when it is done
argument-hint: TASK
allowed-tools: Bash(git-loop start:*)
disable-model-invocation: true
---

` + "```!" + `
git-loop start --session="${CLAUDE_SESSION_ID}" --prompt-file=- <<'GIT_LOOP_TASK'
$ARGUMENTS
GIT_LOOP_TASK
` + "```" + `

If the command above failed, show the user what it printed and stop: no loop is running.

Otherwise git-loop has started a loop for this task. Work on it now:

$ARGUMENTS

Each time you stop, git-loop snapshots the worktree and runs the project's gates. Until they
pass it sends you back with the task and what still fails, so finish the work for real. If the
loop has a promise, write it as <promise>PHRASE</promise> only when it is true.
`
