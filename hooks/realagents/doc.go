// Package realagents holds the real-agent suite's tests that are no one agent's: installing
// every agent's binary (TestRealAgentsAvailable) and the mock model server the agents talk
// to. It has no code of its own; its harness is testdata/realagents, and each supported
// agent's scenarios run in its package, hooks/agents/NAME. (The probe that ran Qwen Code,
// Factory Droid and OpenCode with hooks of its own before git-loop supported them is gone
// with the last of them: each runs the real scenarios now.)
package realagents
