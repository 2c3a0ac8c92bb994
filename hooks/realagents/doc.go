// Package realagents holds the real-agent suite's tests that are no one agent's: installing
// every agent's binary (TestRealAgentsAvailable), the mock model server the agents talk to,
// and the probe that runs Factory Droid and OpenCode, which git-loop does not support yet,
// with a stop hook of its own (TestHarnessRunsNewAgents). It has no code of
// its own; its harness is testdata/realagents, and each supported agent's scenarios run in
// its package, hooks/agents/NAME.
package realagents
