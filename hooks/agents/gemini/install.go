package gemini

import (
	"fmt"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Gemini CLI reads hooks from .gemini/settings.json (the user's: ~/.gemini/settings.json):
// {"hooks": {"AfterAgent": [{"matcher": "*", "hooks": [{"name": …, "type": "command",
// "command": …, "timeout": milliseconds}]}]}}.

// hookFile is the hook install merges into a settings file.
var hookFile = kit.HookFile{Product: "Gemini CLI", Grouped: true, CommandKeys: []string{"command"}, Comments: true,
	Hooks: []kit.FileHook{{Event: "AfterAgent", Command: "git-loop hook gemini after-agent", Entry: kit.Object{
		{Key: "matcher", Val: "*"},
		{Key: "hooks", Val: []any{kit.Object{{Key: "name", Val: "git-loop"}, {Key: "type", Val: "command"},
			{Key: "command", Val: "git-loop hook gemini after-agent"}, {Key: "timeout", Val: kit.StopTimeout * 1000}}}},
	}}}}

// projectFile and userFile are the settings files of the project at dir and of the user.
func projectFile(dir string) string { return filepath.Join(dir, ".gemini", "settings.json") }
func userFile(home string) string   { return filepath.Join(home, ".gemini", "settings.json") }

// check is doctor's check of one installed copy of git-loop's hooks: Gemini CLI runs a
// project's hooks only in a folder it trusts, and a headless run in one it does not trust
// stops unless told to skip the check.
func check(c kit.HookCheck) ([]kit.Problem, []string) {
	if !c.User {
		if p, bad := trustProblem(c.Dir, c.Home); bad {
			return []kit.Problem{p}, nil
		}
		return nil, nil
	}
	if c.Dir == "" {
		return nil, nil
	}
	if _, bad := trustProblem(c.Dir, c.Home); bad {
		return nil, []string{fmt.Sprintf("Gemini CLI does not trust %s: a headless run there (gemini -p) stops with exit 55 unless given --skip-trust, with which this hook runs", c.Dir)}
	}
	return nil, nil
}
