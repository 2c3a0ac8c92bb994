package hooks

import (
	"fmt"
	"os"

	"github.com/git-loop/git-loop/hooks/kit"
)

// readyToRun finishes an install of the agent's hooks, out[0] being the hook file written:
// the agent's own Ready step (Codex records git-loop's hooks as reviewed in
// $CODEX_HOME/config.toml, as Codex's /hooks review does; Codex skips a hook until then);
// then it says, in Blocked, what still keeps the agent from running the hooks (a folder the
// agent does not trust, say), each with its fix, after the last result.
func readyToRun(a *kit.Agent, dir string, user bool, out []InstallResult) ([]InstallResult, error) {
	home, _ := os.UserHomeDir()
	if a.Ready != nil {
		res, err := a.Ready(dir, home, user)
		if err != nil {
			return out, err
		}
		out = append(out, res...)
	}
	if hd, ok := checkHookFile(a, dir, home, user, out[0].Path); ok {
		for _, p := range hd.Problems {
			last := &out[len(out)-1]
			last.Blocked = append(last.Blocked, fmt.Sprintf("%s will not run it yet: %s; fix: %s", a.Product, p.Why, p.Fix))
		}
	}
	return out, nil
}
