// Package claude is git-loop's plug-in for Claude Code ([Agent]): its Stop, SubagentStop and
// SessionStart hooks, read from their payloads and answered in Claude Code's protocol; its
// JSONL transcript, read on the hot path of every stop ([LastAssistantText] backwards from
// the end, so a stop costs the same whatever the session's length; [UsageFrom] forwards from
// a stored offset; [CommandsFrom] for the Bash commands a loop forbids); its block cap; its
// settings files; and the /git-loop command install adds to a project.
//
// Its tests run the real Claude Code, installed from npm into a cache, through every scenario
// of the real-agent suite (testdata/realagents) and those only Claude Code has, and hold
// doctor's trust verdicts to what the real Claude Code does (trust_test.go, with
// testdata/realagents/trust).
package claude
