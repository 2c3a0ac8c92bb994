// Package gemini is git-loop's plug-in for Gemini CLI ([Agent]): its AfterAgent hook (whose
// response repeats the answers before a deny), its chat log (tokens and shell commands),
// its settings file, whose timeouts are milliseconds, and its folder trust.
//
// Its tests run the real Gemini CLI, installed from npm into a cache, through every scenario
// of the real-agent suite (testdata/realagents), and hold doctor's trust verdicts to what
// the real Gemini CLI does (trust_test.go, with testdata/realagents/trust).
package gemini
