// Package opencode is git-loop's support for OpenCode, which runs no hook commands but loads
// the project's and the user's plugins (.opencode/plugin/*.js) without asking. install
// writes git-loop's plugin (git-loop.js, embedded here) whole: at each session.idle it runs
// `git-loop hook opencode session-idle` with a digest of the session's messages (the turn's
// text, each answer's tokens and shell commands) and, when git-loop answers block, sends the
// reason as the session's next prompt. That continues a session only where OpenCode keeps
// running after the turn (the TUI; `opencode serve` with `opencode run --attach`): plain
// `opencode run` exits at the first idle, and is driven with `git loop run` instead.
package opencode
