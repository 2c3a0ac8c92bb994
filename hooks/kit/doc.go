// Package kit is what every agent's plug-in is built from: the description of an agent
// ([Agent]: its name, hook events, hook file, timeouts, install steps and doctor checks), the
// one engine that judges a stop in any agent's protocol ([RunStop]), reading a hook's payload
// and writing its answer, merging git-loop's hooks into an agent's JSON hook file byte for
// byte ([HookFile]) or writing the program that is the hook file of an agent without
// command hooks ([HookFile.Script]), and the hook timeouts install writes and a stop reads
// back.
//
// An agent's own package (hooks/agents/NAME) holds what is particular to it: its payloads and
// answers, what its session log's lines mean, its hook file's shape and its trust rules, and
// exports one [Agent]. Package hooks lists them (hooks/agents) and dispatches, installs and
// checks through them. kit knows no agent by name.
package kit
