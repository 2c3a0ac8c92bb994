// Package copilot is git-loop's support for Copilot CLI. Its tests run the real Copilot CLI, installed
// from npm into a cache, through every scenario of the real-agent suite
// (testdata/realagents) and those only Copilot CLI has, and hold doctor's trust verdicts to what
// the real Copilot CLI does (trust_test.go, with testdata/realagents/trust).
package copilot
