// Package copilot is git-loop's plug-in for Copilot CLI ([Agent]): its agentStop hook, whose
// payload carries no message, so the turn's text, tokens and commands come from the session
// log it names (waiting for the log to hold the stop); its block cap; the hooks directories
// it reads every .json file of; and its folder trust.
//
// Its tests run the real Copilot CLI, installed from npm into a cache, through every scenario
// of the real-agent suite (testdata/realagents) and those only Copilot CLI has, and hold
// doctor's trust verdicts to what the real Copilot CLI does (trust_test.go, with
// testdata/realagents/trust).
package copilot
