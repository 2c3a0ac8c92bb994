// Package codex is git-loop's support for Codex CLI. Its tests run the real Codex CLI, installed
// from npm into a cache, through every scenario of the real-agent suite
// (testdata/realagents) and those only Codex CLI has, and hold doctor's trust verdicts to what
// the real Codex CLI does (trust_test.go, with testdata/realagents/trust).
package codex
