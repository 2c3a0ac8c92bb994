// Package sessionlog reads the logs coding agents append to as a session runs (JSONL:
// Claude Code's transcript, Codex CLI's rollout, Gemini CLI's chat log, Copilot CLI's
// events), on the hot path of every stop, without loading them:
//
//   - backwards from the end ([LastTurnText], [BackReader]), so that finding what the agent
//     said this turn costs the same whatever the session's length;
//   - forwards from an offset a previous stop stored ([Forward], [CommandsFrom]), so that
//     counting tokens and commands pays only for what was appended since.
//
// An agent supplies only what its lines mean: a [Classifier] for the turn's text, a function
// from a line to the shell commands it records. A line longer than [Limits].MaxLine is
// skipped, never held whole in memory; a path naming anything but a regular file is refused
// without blocking ([Open]).
package sessionlog
