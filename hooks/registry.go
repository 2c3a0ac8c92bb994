package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-loop/git-loop/hooks/agents"
)

// What help and messages say of the agents, from the list (hooks/agents): no agent's name
// is written here.

// Agents lists the agents install and hook know: claude first, then the others by name.
func Agents() []string {
	names := registryNames()
	first := names[0]
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == first:
			return -1
		case b == first:
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// AgentList names the agents for help text, in the list's order, the last joined by conj:
// "claude, codex, gemini, cursor or copilot".
func AgentList(conj string) string {
	names := registryNames()
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// InstallHint is the command that installs an agent's hooks, with the other agents named.
func InstallHint() string {
	names := registryNames()
	return "`git loop install " + names[0] + "` (or " + strings.Join(names[1:], ", ") + ")"
}

// registryNames are the agents' names in the list's order.
func registryNames() []string {
	names := make([]string, len(agents.All))
	for i, a := range agents.All {
		names[i] = a.Name
	}
	return names
}

// knownHooks lists every agent's events, for the message about a hook git-loop does not
// know: "claude stop|subagent-stop|session-start, codex stop, …".
func knownHooks() string {
	var parts []string
	for _, a := range agents.All {
		var events []string
		for _, e := range a.Events {
			events = append(events, e.Name)
		}
		parts = append(parts, a.Name+" "+strings.Join(events, "|"))
	}
	return strings.Join(parts, ", ")
}

// productOf is agent's own name ("Claude Code"), or agent itself when it is not listed.
func productOf(agent string) string {
	if a := agents.Named(agent); a != nil {
		return a.Product
	}
	return agent
}

// unknownHook is what hook says of an AGENT EVENT pair it does not know.
func unknownHook(agent, event string) string {
	return fmt.Sprintf("git-loop: hook %q %q is not known (%s); letting the agent go on", agent, event, knownHooks())
}
