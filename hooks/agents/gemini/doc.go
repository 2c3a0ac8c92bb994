// Package gemini is git-loop's support for Gemini CLI. Its tests run the real Gemini CLI, installed
// from npm into a cache, through every scenario of the real-agent suite
// (testdata/realagents) and those only Gemini CLI has, and hold doctor's trust verdicts to what
// the real Gemini CLI does (trust_test.go, with testdata/realagents/trust).
package gemini
