// Package gemini is git-loop's support for Gemini CLI. Its tests run the real Gemini CLI, installed
// from npm into a cache, through every scenario of the real-agent suite
// (testdata/realagents) and those only Gemini CLI has.
package gemini
