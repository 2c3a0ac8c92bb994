package copilot

import (
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Copilot CLI reads hooks from every .json file of .github/hooks/ (the user's:
// $COPILOT_HOME/hooks/, default ~/.copilot); install writes git-loop.json there: {"version":
// 1, "hooks": {"agentStop": [{"type": "command", "bash": …, "powershell": …, "timeoutSec":
// seconds}]}}.

// hookFile is the hook install merges into a hooks file.
var hookFile = kit.HookFile{Product: "Copilot CLI", Preamble: []kit.KV{{Key: "version", Val: 1}}, CommandKeys: []string{"bash", "powershell", "command"},
	Hooks: []kit.FileHook{{Event: "agentStop", Command: "git-loop hook copilot agent-stop", Entry: kit.Object{
		{Key: "type", Val: "command"}, {Key: "bash", Val: "git-loop hook copilot agent-stop"},
		{Key: "powershell", Val: "git-loop hook copilot agent-stop"}, {Key: "timeoutSec", Val: kit.StopTimeout}}}}}

// projectFile and userFile are the hooks files install writes, the project's at dir and
// the user's.
func projectFile(dir string) string {
	return filepath.Join(dir, ".github", "hooks", "git-loop.json")
}
func userFile(home string) string {
	return filepath.Join(copilotHome(home), "hooks", "git-loop.json")
}

// copilotHome is $COPILOT_HOME, else ~/.copilot.
func copilotHome(home string) string {
	return kit.EnvOr("COPILOT_HOME", filepath.Join(home, ".copilot"))
}

// doctorFiles: Copilot CLI reads every .json in its hooks directories.
func doctorFiles(dir, home string, user bool) []string {
	pattern := filepath.Join(dir, ".github", "hooks", "*.json")
	if user {
		pattern = filepath.Join(filepath.Dir(userFile(home)), "*.json")
	}
	files, _ := filepath.Glob(pattern)
	return files
}

// check is doctor's check of one installed copy: Copilot CLI runs a project's hooks only in
// a folder it trusts.
func check(c kit.HookCheck) ([]kit.Problem, []string) {
	if !c.User {
		if p, bad := trustProblem(c.Dir, c.Home); bad {
			return []kit.Problem{p}, nil
		}
	}
	return nil, nil
}
