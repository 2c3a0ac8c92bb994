// Package hooks is what `git loop hook`, `install` and `doctor` do for any agent. It sits
// between the CLI and the agents' plug-ins (main → hooks → hooks/agents → each agent's
// package → hooks/kit → loop):
//
//   - [Run] dispatches `git loop hook AGENT EVENT` to the agent's handler, which reads the
//     payload, has loop judge the stop and answers in the agent's own protocol; a hook git-loop
//     does not know exits 0, saying so, so that it never traps an agent.
//   - [Install] merges the agent's hooks into its files, byte for byte around what is there,
//     and says what still keeps the agent from running them.
//   - [Doctor] says, for every agent, where git-loop's hooks are installed and whether the
//     agent would run them.
//   - [ParseSlashArgs] reads the arguments of Claude Code's /git-loop command, which
//     `git loop start --slash-args` is given.
//
// No agent is named here: the list is hooks/agents, and all that is particular to an agent
// (payloads, answers, session logs, hook files, trust rules) is in its package.
package hooks
