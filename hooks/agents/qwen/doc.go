// Package qwen is git-loop's plug-in for Qwen Code ([Agent]): its Stop hook, in Claude Code's
// shape, read from its payload and answered with Claude Code's block; its chat log (tokens
// and shell commands); its block cap; its settings file, whose timeouts install writes in
// milliseconds; and its folder trust.
//
// Its tests run the real Qwen Code, installed from npm into a cache with the Node.js it
// needs, through every scenario of the real-agent suite (testdata/realagents), and hold
// doctor's trust verdicts to what the real Qwen Code does (trust_test.go).
package qwen
