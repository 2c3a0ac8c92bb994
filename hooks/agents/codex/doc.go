// Package codex is git-loop's plug-in for Codex CLI ([Agent]): its Stop hook, its rollout
// (tokens and shell commands), its hooks file, and its trust rules: a project's trust in
// config.toml and the review Codex requires of every hook, whose hash ([HookHash]) install
// records as Codex's /hooks would.
//
// Its tests run the real Codex CLI, installed from npm into a cache, through every scenario
// of the real-agent suite (testdata/realagents), and hold git-loop's hashes, keys and
// doctor's verdicts to what the real `codex app-server` reports (trust_test.go, with
// testdata/realagents/trust).
package codex
