package cursor

import (
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Cursor reads hooks from .cursor/hooks.json (the user's: ~/.cursor/hooks.json): {"version":
// 1, "hooks": {"stop": [{"command": …, "timeout": seconds, "loop_limit": n}],
// "afterAgentResponse": [{"command": …}]}}. loop_limit caps Cursor's automatic follow-ups (5
// when unset); the loop's own limits are what should end it, so git-loop sets a high one.

// loopLimit is the follow-up cap installed for Cursor's stop hook.
const loopLimit = 100

// hookFile is the hooks install merges into a hooks file.
var hookFile = kit.HookFile{Product: "Cursor", Preamble: []kit.KV{{Key: "version", Val: 1}}, CommandKeys: []string{"command"},
	Hooks: []kit.FileHook{
		{Event: "stop", Command: "git-loop hook cursor stop", Entry: kit.Object{
			{Key: "command", Val: "git-loop hook cursor stop"}, {Key: "timeout", Val: kit.StopTimeout}, {Key: "loop_limit", Val: loopLimit}}},
		{Event: "afterAgentResponse", Command: "git-loop hook cursor after-agent-response", Entry: kit.Object{
			{Key: "command", Val: "git-loop hook cursor after-agent-response"}, {Key: "timeout", Val: 30}}},
	}}

// projectFile and userFile are the hooks files of the project at dir and of the user.
func projectFile(dir string) string { return filepath.Join(dir, ".cursor", "hooks.json") }
func userFile(home string) string   { return filepath.Join(home, ".cursor", "hooks.json") }

// check is doctor's check of one installed copy: nothing is known to keep Cursor from
// running it, but no real Cursor has confirmed that.
func check(kit.HookCheck) ([]kit.Problem, []string) {
	return nil, []string{"not checked against a real Cursor: git-loop knows of nothing else it needs"}
}
