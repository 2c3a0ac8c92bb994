// Package droid is git-loop's plug-in for Factory Droid ([Agent]): its Stop hook, in Claude
// Code's shape, whose payload carries no message, so the turn's text and shell commands come
// from the session log it names (transcript_path) and the tokens from the session's settings
// file beside it; the hook files it reads (settings.json's "hooks", hidden event by event by
// a hooks.json beside it) and what keeps it from running them.
//
// Its tests run the real Droid (@factory/cli), installed from npm into a cache, through every
// scenario of the real-agent suite (testdata/realagents) and those only Droid has, offline
// (every Factory endpoint pointed at the mock), and hold doctor's verdicts to what the real
// Droid does (trust_test.go, with testdata/realagents/trust).
package droid
