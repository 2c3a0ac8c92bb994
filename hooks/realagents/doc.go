// Package realagents holds the end-to-end suite of git-loop with the real agents' binaries
// (Claude Code, Codex CLI, Gemini CLI, Copilot CLI) against the project's mock model server:
// each test is one scenario run with each agent as a subtest. It has no code of its own; its
// harness is testdata/realagents. It is a package of its own so that `go test ./...` runs it
// beside the root package's scripts, not after them.
package realagents
