package hooks

import (
	"fmt"
	"os"
)

// readyToRun finishes an install of agent's hooks, out[0] being the hook file written: for
// Codex it records git-loop's hooks as reviewed in $CODEX_HOME/config.toml, as Codex's
// /hooks review does (Codex skips a hook until then); then it says, in Blocked, what
// still keeps the agent from running the hooks (a folder the agent does not trust, say),
// each with its fix, after the last result.
func readyToRun(agent, dir string, user bool, out []InstallResult) ([]InstallResult, error) {
	home, _ := os.UserHomeDir()
	if spec, ok := specOf(agent); ok && spec.ready != nil {
		res, err := spec.ready(dir, home, user)
		if err != nil {
			return out, err
		}
		out = append(out, res...)
	}
	if hd, ok := checkHookFile(agent, dir, home, user, out[0].Path); ok {
		for _, p := range hd.Problems {
			last := &out[len(out)-1]
			last.Blocked = append(last.Blocked, fmt.Sprintf("%s will not run it yet: %s; fix: %s", productOf(agent), p.Why, p.Fix))
		}
	}
	return out, nil
}

// readyCodex records git-loop's hooks in the Codex hook file just written (the project's at
// dir, or the user's) as reviewed in $CODEX_HOME/config.toml, as Codex's /hooks review does.
func readyCodex(dir, home string, user bool) ([]InstallResult, error) {
	file := codexUserHooks(home)
	if !user {
		file, _ = CodexProjectHooks(dir)
	}
	doc, err := readIfExists(file)
	if err != nil || doc == nil {
		return nil, nil
	}
	refs, err := codexGitLoopHooks(doc, file)
	if err != nil || len(refs) == 0 {
		return nil, nil
	}
	res, err := recordCodexReviews(codexConfigFile(home), refs)
	if err != nil {
		return nil, err
	}
	return []InstallResult{res}, nil
}
