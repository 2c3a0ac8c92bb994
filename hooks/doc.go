// Package hooks speaks the agents' hook protocols: stdin payloads in, decisions out. It sits
// between the CLI and package loop (main → hooks → loop): it reads what an agent's hook sends
// on stdin, has loop decide, and answers in that agent's own protocol (Claude Code, Codex,
// Gemini CLI, Cursor, Copilot CLI).
//
// It also reads what a payload only points to, Claude Code's JSONL session transcript, on the
// hot path of every agent stop:
//
//   - [LastAssistantText] finds the text of the last assistant turn by reading the transcript
//     backwards from its end, so a stop costs the same whatever the session's length.
//   - [UsageFrom] sums token usage forward from a stored offset, so a caller that keeps the
//     offset pays only for what was appended since its last call.
//
// Both bound their memory: a line longer than 64 MiB is skipped, never loaded whole.
package hooks
