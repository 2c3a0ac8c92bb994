// Package claude is git-loop's support for Claude Code. Its tests run the real Claude Code, installed
// from npm into a cache, through every scenario of the real-agent suite
// (testdata/realagents) and those only Claude Code has, and hold doctor's trust verdicts to what
// the real Claude Code does (trust_test.go, with testdata/realagents/trust).
package claude
