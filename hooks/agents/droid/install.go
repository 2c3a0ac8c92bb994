package droid

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
)

// Droid (0.225) reads hooks, for the project and for the user alike, from the settings folder's
// settings.json ("hooks", Claude Code's shape) and from its hooks.json (or, when there is none,
// the older hooks/hooks.json), which holds the events at its top level. The two are merged
// event by event, hooks.json's list of an event replacing settings.json's; the project's and
// the user's hooks all run. The folder is .factory in the project, and the user's is
// ~/.factory ($FACTORY_HOME_OVERRIDE/.factory when that is set). Their shape:
//
//	settings.json: {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "…", "timeout": 660}]}]}}
//	hooks.json:    {"Stop": [{"hooks": [{"type": "command", "command": "…"}]}], "hooksDisabled": false}
//
// timeout is in seconds (60 when unset). install writes settings.json, where a person keeps
// Droid's other settings (customModels, …) too: the merge keeps every byte of them.
// "hooksDisabled": true (in either file's hooks) turns every hook off.

// name is git-loop's name for Droid (Agent.Name).
const name = "droid"

// hookFile is the hook install merges into a settings file. Stop runs the loop's gates, so
// install gives it the timeout the worktree's gates need (kit.Agent.InstallHookFile).
var hookFile = kit.HookFile{Product: "Factory Droid", Grouped: true, CommandKeys: []string{"command"}, Comments: true, Hooks: []kit.FileHook{{
	Event: "Stop", Command: "git-loop hook droid stop",
	Entry: kit.HookGroup{Hooks: []kit.HookCommand{{Type: "command", Command: "git-loop hook droid stop", Timeout: kit.StopTimeout}}},
}}}

// projectFile and userFile are the settings files install writes, the project's at dir and
// the user's.
func projectFile(dir string) string { return filepath.Join(projectFolder(dir), "settings.json") }
func userFile(home string) string   { return filepath.Join(userFolder(home), "settings.json") }

// projectFolder and userFolder are Droid's settings folders: the project's at dir, and the
// user's ($FACTORY_HOME_OVERRIDE, else the home directory, then .factory).
func projectFolder(dir string) string { return filepath.Join(dir, ".factory") }
func userFolder(home string) string {
	return filepath.Join(kit.EnvOr("FACTORY_HOME_OVERRIDE", home), ".factory")
}

// hooksJSON is the hooks file Droid reads in a settings folder besides settings.json:
// hooks.json, else hooks/hooks.json; "" when there is neither.
func hooksJSON(folder string) string {
	for _, p := range []string{filepath.Join(folder, "hooks.json"), filepath.Join(folder, "hooks", "hooks.json")} {
		if fileExists(p) {
			return p
		}
	}
	return ""
}

// check is doctor's check of one installed copy (in settings.json): a hooks.json beside it
// whose Stop list hides settings.json's, or hooks turned off, keep Droid from running it; the
// interactive droid runs no hook in a folder the person has not trusted.
func check(c kit.HookCheck) ([]kit.Problem, []string) {
	folder := projectFolder(c.Dir)
	if c.User {
		folder = userFolder(c.Home)
	}
	var problems []kit.Problem
	if p, bad := hiddenBy(folder); bad {
		problems = append(problems, p)
	}
	folders := []string{userFolder(c.Home)}
	if c.Dir != "" {
		folders = append(folders, projectFolder(c.Dir))
	}
	for _, f := range folders {
		if p, bad := hooksOff(f); bad {
			problems = append(problems, p)
		}
	}
	var notes []string
	if c.Dir != "" && !trusted(c.Dir, c.Home) {
		notes = append(notes, fmt.Sprintf("the interactive droid runs no hook in a folder you have not trusted: it asks at its start in %s (droid exec does not ask, and runs them)", c.Dir))
	}
	return problems, notes
}

// hookLists is a hook file's events, each a list of groups of commands.
type hookLists map[string]json.RawMessage

// readHooksJSON reads the hooks file at path: its events and whether it holds hooksDisabled
// true. found is false when Droid would not read it (missing, or not a JSON object).
func readHooksJSON(path string) (lists hookLists, disabled, found bool) {
	if path == "" {
		return nil, false, false
	}
	var doc hookLists
	if ok, err := fileedit.ReadJSONC(path, &doc); !ok || err != nil || doc == nil {
		return nil, false, false
	}
	return doc, isTrue(doc["hooksDisabled"]), true
}

// hiddenBy reports, with the fix, that the hooks.json of a settings folder lists Stop hooks
// without git-loop's: Droid then runs those instead of settings.json's.
func hiddenBy(folder string) (kit.Problem, bool) {
	path := hooksJSON(folder)
	lists, _, found := readHooksJSON(path)
	if !found {
		return kit.Problem{}, false
	}
	var groups []json.RawMessage
	if json.Unmarshal(lists["Stop"], &groups) != nil || groups == nil {
		return kit.Problem{}, false
	}
	if runsOurs(groups) {
		return kit.Problem{}, false
	}
	return kit.Problem{
		Why: fmt.Sprintf("%s lists Stop hooks, and Factory Droid runs those instead of the ones in %s", path, filepath.Join(folder, "settings.json")),
		Fix: fmt.Sprintf(`add {"type": "command", "command": "git-loop hook droid stop", "timeout": %d} to a group of "Stop" in %s (or move its Stop hooks into settings.json)`, kit.StopTimeout, path),
	}, true
}

// runsOurs reports whether a Stop list's groups hold git-loop's command.
func runsOurs(groups []json.RawMessage) bool {
	for _, g := range groups {
		var group struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &group) != nil {
			continue
		}
		for _, h := range group.Hooks {
			if agent, event, ok := kit.GitLoopHookArgs(h.Command); ok && agent == name && event == "stop" {
				return true
			}
		}
	}
	return false
}

// hooksOff reports, with the fix, that a settings folder turns every hook off: hooksDisabled
// true in settings.json's "hooks" or in hooks.json.
func hooksOff(folder string) (kit.Problem, bool) {
	settings := filepath.Join(folder, "settings.json")
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if ok, err := fileedit.ReadJSONC(settings, &s); ok && err == nil && isTrue(s.Hooks["hooksDisabled"]) {
		return hooksOffProblem(settings), true
	}
	if path := hooksJSON(folder); path != "" {
		if _, disabled, _ := readHooksJSON(path); disabled {
			return hooksOffProblem(path), true
		}
	}
	return kit.Problem{}, false
}

func hooksOffProblem(path string) kit.Problem {
	return kit.Problem{
		Why: fmt.Sprintf(`%s turns Factory Droid's hooks off ("hooksDisabled": true)`, path),
		Fix: fmt.Sprintf(`remove "hooksDisabled" from %s, or turn hooks on in droid's /hooks`, path),
	}
}

// isTrue reports whether raw is the JSON value true.
func isTrue(raw json.RawMessage) bool {
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

// trusted reports whether the user's settings list dir, or a folder above it, in
// trustedFolders (the interactive droid's answer to its trust prompt).
func trusted(dir, home string) bool {
	var s struct {
		TrustedFolders map[string]json.RawMessage `json:"trustedFolders"`
	}
	if ok, err := fileedit.ReadJSONC(userFile(home), &s); !ok || err != nil {
		return false
	}
	where := kit.Physical(dir)
	for f := range s.TrustedFolders {
		if kit.Within(where, kit.Physical(f)) {
			return true
		}
	}
	return false
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
