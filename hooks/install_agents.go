package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-loop/git-loop/loop"
)

// The hook files of the other agents, each merged like Claude Code's settings (installHooks):
//
//   - Codex CLI: .codex/hooks.json (user: $CODEX_HOME/hooks.json, default ~/.codex), the
//     shape of Claude Code's: {"hooks": {"Stop": [{"hooks": [{"type": "command",
//     "command": …, "timeout": seconds}]}]}}.
//   - Gemini CLI: .gemini/settings.json (user: ~/.gemini/settings.json), {"hooks":
//     {"AfterAgent": [{"matcher": "*", "hooks": [{"name": …, "type": "command", "command": …,
//     "timeout": milliseconds}]}]}}.
//   - Cursor: .cursor/hooks.json (user: ~/.cursor/hooks.json), {"version": 1, "hooks":
//     {"stop": [{"command": …, "timeout": seconds, "loop_limit": n}], "afterAgentResponse":
//     [{"command": …}]}}. loop_limit caps Cursor's automatic follow-ups (5 when unset); the
//     loop's own limits are what should end it, so git-loop sets a high one.
//   - Copilot CLI: .github/hooks/git-loop.json (user: $COPILOT_HOME/hooks/git-loop.json,
//     default ~/.copilot), {"version": 1, "hooks": {"agentStop": [{"type": "command",
//     "bash": …, "powershell": …, "timeoutSec": seconds}]}}.

// stopTimeout is how long an agent lets a stop hook run (gates included), in seconds, as
// installed for every agent when the worktree's gates need no more (see installTimeout);
// the hook cuts its gates off before it.
var stopTimeout = int(loop.HookTimeout(nil, nil) / time.Second)

// cursorLoopLimit is the follow-up cap installed for Cursor's stop hook.
const cursorLoopLimit = 100

type geminiHook struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

var (
	codexFile = hookFile{agent: "codex", product: "Codex", grouped: true, commandKeys: []string{"command"},
		hooks: []fileHook{{"Stop", "git-loop hook codex stop",
			hookGroup{Hooks: []hookCommand{{"command", "git-loop hook codex stop", stopTimeout}}}}}}

	geminiFile = hookFile{agent: "gemini", product: "Gemini CLI", grouped: true, commandKeys: []string{"command"},
		hooks: []fileHook{{"AfterAgent", "git-loop hook gemini after-agent", orderedObject{
			{"matcher", "*"},
			{"hooks", []any{geminiHook{"git-loop", "command", "git-loop hook gemini after-agent", stopTimeout * 1000}}},
		}}}}

	cursorFile = hookFile{agent: "cursor", product: "Cursor", preamble: []jsonKV{{"version", 1}}, commandKeys: []string{"command"},
		hooks: []fileHook{
			{"stop", "git-loop hook cursor stop", orderedObject{
				{"command", "git-loop hook cursor stop"}, {"timeout", stopTimeout}, {"loop_limit", cursorLoopLimit}}},
			{"afterAgentResponse", "git-loop hook cursor after-agent-response", orderedObject{
				{"command", "git-loop hook cursor after-agent-response"}, {"timeout", 30}}},
		}}

	copilotFile = hookFile{agent: "copilot", product: "Copilot CLI", preamble: []jsonKV{{"version", 1}}, commandKeys: []string{"bash", "powershell", "command"},
		hooks: []fileHook{{"agentStop", "git-loop hook copilot agent-stop", orderedObject{
			{"type", "command"}, {"bash", "git-loop hook copilot agent-stop"},
			{"powershell", "git-loop hook copilot agent-stop"}, {"timeoutSec", stopTimeout}}}}}
)

// The hook files' places, for the project at dir and for the user in home.
func codexProjectFile(dir string) string { return filepath.Join(dir, ".codex", "hooks.json") }
func codexUserFile(home string) string {
	return filepath.Join(envOr("CODEX_HOME", filepath.Join(home, ".codex")), "hooks.json")
}
func geminiProjectFile(dir string) string { return filepath.Join(dir, ".gemini", "settings.json") }
func geminiUserFile(home string) string   { return filepath.Join(home, ".gemini", "settings.json") }
func cursorProjectFile(dir string) string { return filepath.Join(dir, ".cursor", "hooks.json") }
func cursorUserFile(home string) string   { return filepath.Join(home, ".cursor", "hooks.json") }
func copilotProjectFile(dir string) string {
	return filepath.Join(dir, ".github", "hooks", "git-loop.json")
}
func copilotUserFile(home string) string {
	return filepath.Join(envOr("COPILOT_HOME", filepath.Join(home, ".copilot")), "hooks", "git-loop.json")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// ErrUnknownAgent: install or hook was given an agent git-loop has no protocol for.
var ErrUnknownAgent = errors.New("unknown agent")

// inHome is where agent's hooks go for the user, at userIn of the home directory.
func inHome(agent string, userIn func(home string) string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("install: find the home directory for %s's user settings: %w", productOf(agent), err)
	}
	return userIn(home), nil
}

// doubleInstallNote looks for git-loop's hooks of agent in the agent's other files (the
// user's when installing for the project, and the other way round; for Copilot also the
// other .json files of its hooks directories: doctor's files) and, when it finds them, says
// so: the agent runs every matching hook, so each stop would be judged twice.
func doubleInstallNote(agent, dir string, user bool, written string) string {
	hf, ok := hookFileOf(agent)
	if !ok {
		return ""
	}
	home, _ := os.UserHomeDir()
	others := append(hookFiles(agent, dir, home, false), hookFiles(agent, dir, home, true)...)
	for _, p := range others {
		if p == "" || sameFile(p, written) {
			continue
		}
		doc, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if _, _, present, err := mergeHooks(doc, p, hf); err == nil && len(present) > 0 {
			return fmt.Sprintf("%s also runs git-loop's hooks; %s runs both, so each stop would be judged twice: remove them from one of the files", p, hf.product)
		}
	}
	return ""
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}
