package hooks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The registry: every agent git-loop supports, each in one entry. Dispatch, install,
// doctor, the timeouts and the next-step advice all iterate it, so no agent's name is
// switched on anywhere else for these. (Issue 26 moves each entry, with the agent's
// protocol, session-log lines, hook file and trust rules, into a package of its own.)

// agentSpec is one agent as git-loop knows it.
type agentSpec struct {
	name    string // git-loop's name for it: git loop install NAME, git loop hook NAME EVENT
	product string // its own name, for messages
	command string // how a person starts it on the project, for the next-step advice
	// timeoutKey and timeoutUnit are the key of a hook entry's timeout in its hook file and
	// the unit the agent reads it in.
	timeoutKey  string
	timeoutUnit time.Duration
	events      []agentEvent // the hook events it calls git-loop with, in the order they are listed
	file        hookFile     // its hook file: the hooks install merges in, and how to find them
	// projectFile and userFile are where install writes its hooks, for the project at dir
	// or for the user.
	projectFile func(dir string) string
	userFile    func() (string, error)
	// userIn is userFile for a home directory, for the agents whose user file is in it
	// (userFile is derived from it).
	userIn func(home string) string
	// settingsFiles are all the files the agent reads hooks from (project and user), where
	// they are more than those two; nil: those two. A stop finds its own timeout in them.
	settingsFiles func(dir string) []string
	// afterInstall writes what else install adds for the agent (Claude's /git-loop
	// command); ready readies the hooks install wrote to run (Codex's review record).
	afterInstall func(dir string, user bool) ([]InstallResult, error)
	ready        func(dir, home string, user bool) ([]InstallResult, error)
	// doctorFiles are the files that may hold git-loop's hooks for the project at dir or for
	// the user, where the agent reads more than the one file install writes; nil: that file.
	doctorFiles func(dir, home string, user bool) []string
	// check is doctor's own check of one installed copy of the hooks: what keeps the agent
	// from running them (its trust rules), and what else the person should know; nil: none.
	check func(hookCheck) (problems []Problem, notes []string)
}

// hookCheck is what an agent's doctor check knows of the copy it checks.
type hookCheck struct {
	dir, home string // the project ("" when only the user's hooks are checked) and the home
	user      bool   // the user's copy, else the project's
	install   string // the command that installs this copy again
}

// agentEvent is one hook event an agent calls git-loop with.
type agentEvent struct {
	name string // the EVENT of git loop hook AGENT EVENT
	// judges is set for events that run the loop's gates (a stop): their hook timeout is the
	// long one install computes; the others answer at once and keep a short one.
	judges bool
	run    func(ctx context.Context, io Streams) int
}

// registry lists the agents in the order git-loop came to support them, the order help
// lists them in (Agents sorts them for doctor and install's messages). It is set in init
// because the handlers it names read it back (a stop finds its own hook's timeout).
var registry []agentSpec

func init() {
	registry = []agentSpec{
		{name: "claude", file: claudeFile, product: "Claude Code", command: "claude", timeoutKey: "timeout", timeoutUnit: time.Second, events: []agentEvent{
			{"stop", true, func(ctx context.Context, io Streams) int { return ClaudeStop(ctx, io, false) }},
			{"subagent-stop", true, func(ctx context.Context, io Streams) int { return ClaudeStop(ctx, io, true) }},
			{"session-start", false, func(_ context.Context, io Streams) int { return ClaudeSessionStart(io) }},
		}, projectFile: ClaudeProjectSettings, userFile: ClaudeUserSettings, settingsFiles: claudeSettingsFiles,
			afterInstall: installClaudeCommand, doctorFiles: claudeDoctorFiles},
		{name: "codex", file: codexFile, projectFile: codexProjectFile, userIn: codexUserFile, product: "Codex", command: "codex", timeoutKey: "timeout", timeoutUnit: time.Second, events: []agentEvent{
			{"stop", true, CodexStop},
		}, check: checkCodex, ready: readyCodex},
		{name: "gemini", file: geminiFile, projectFile: geminiProjectFile, userIn: geminiUserFile, product: "Gemini CLI", command: "gemini", timeoutKey: "timeout", timeoutUnit: time.Millisecond, events: []agentEvent{
			{"after-agent", true, GeminiAfterAgent},
		}, check: checkGemini},
		{name: "cursor", file: cursorFile, projectFile: cursorProjectFile, userIn: cursorUserFile, product: "Cursor", command: "cursor .", timeoutKey: "timeout", timeoutUnit: time.Second, events: []agentEvent{
			{"stop", true, CursorStop},
			{"after-agent-response", false, func(_ context.Context, io Streams) int { return CursorAfterResponse(io) }},
		}, check: checkCursor},
		{name: "copilot", file: copilotFile, projectFile: copilotProjectFile, userIn: copilotUserFile, product: "Copilot CLI", command: "copilot", timeoutKey: "timeoutSec", timeoutUnit: time.Second, events: []agentEvent{
			{"agent-stop", true, CopilotAgentStop},
		}, doctorFiles: copilotDoctorFiles, check: checkCopilot},
	}
	for i := range registry {
		if s := &registry[i]; s.userFile == nil { // a file in the home directory
			s.userFile = func() (string, error) { return inHome(s.name, s.userIn) }
		}
	}
}

// specOf is the registry's entry for agent.
func specOf(agent string) (agentSpec, bool) {
	for _, s := range registry {
		if s.name == agent {
			return s, true
		}
	}
	return agentSpec{}, false
}

// eventOf is agent's hook event named event.
func eventOf(agent, event string) (agentEvent, bool) {
	s, _ := specOf(agent)
	for _, e := range s.events {
		if e.name == event {
			return e, true
		}
	}
	return agentEvent{}, false
}

// judges reports whether agent's hook event runs the loop's gates (a stop).
func judges(agent, event string) bool {
	e, ok := eventOf(agent, event)
	return ok && e.judges
}

// Agents lists the agents install and hook know: claude first, then the others by name.
func Agents() []string {
	names := registryNames()
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "claude":
			return -1
		case b == "claude":
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// AgentList names the agents for help text, in the registry's order, the last joined by
// conj: "claude, codex, gemini, cursor or copilot".
func AgentList(conj string) string {
	names := registryNames()
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// InstallHint is the command that installs an agent's hooks, with the other agents named.
func InstallHint() string {
	names := registryNames()
	return "`git loop install " + names[0] + "` (or " + strings.Join(names[1:], ", ") + ")"
}

// registryNames are the agents' names in the registry's order.
func registryNames() []string {
	names := make([]string, len(registry))
	for i, s := range registry {
		names[i] = s.name
	}
	return names
}

// knownHooks lists every agent's events, for the message about a hook git-loop does not
// know: "claude stop|subagent-stop|session-start, codex stop, …".
func knownHooks() string {
	var parts []string
	for _, s := range registry {
		var events []string
		for _, e := range s.events {
			events = append(events, e.name)
		}
		parts = append(parts, s.name+" "+strings.Join(events, "|"))
	}
	return strings.Join(parts, ", ")
}

// productOf is agent's own name ("Claude Code"), or agent itself when it is not registered.
func productOf(agent string) string {
	if s, ok := specOf(agent); ok {
		return s.product
	}
	return agent
}

// unknownHook is what hook says of an AGENT EVENT pair it does not know.
func unknownHook(agent, event string) string {
	return fmt.Sprintf("git-loop: hook %q %q is not known (%s); letting the agent go on", agent, event, knownHooks())
}
