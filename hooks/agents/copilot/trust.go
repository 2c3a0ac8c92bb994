package copilot

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
)

// trustProblem says why Copilot CLI (1.0.102) would not load the project hooks of
// dir: it loads .github/hooks/*.json only in a trusted folder, one listed (or under one
// listed) in trustedFolders of $COPILOT_HOME/config.json, or for one run with --trust-folder
// or COPILOT_ALLOW_ALL=true (exactly "true": its other true spellings do not trust).
func trustProblem(dir, home string) (kit.Problem, bool) {
	if os.Getenv("COPILOT_ALLOW_ALL") == "true" {
		return kit.Problem{}, false
	}
	cfgPath := filepath.Join(kit.EnvOr("COPILOT_HOME", filepath.Join(home, ".copilot")), "config.json")
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if _, err := fileedit.ReadJSONC(cfgPath, &cfg); err != nil {
		return kit.Problem{Why: fmt.Sprintf("git-loop cannot read %s (%v)", cfgPath, err), Fix: "fix it by hand"}, true
	}
	where := kit.Physical(dir)
	for _, f := range cfg.TrustedFolders {
		if kit.Within(where, kit.Physical(f)) {
			return kit.Problem{}, false
		}
	}
	return kit.Problem{
		Why: fmt.Sprintf("Copilot CLI runs a project's hooks only in a trusted folder, and %s is not in trustedFolders of %s", dir, cfgPath),
		Fix: fmt.Sprintf("run copilot with --trust-folder (or COPILOT_ALLOW_ALL=true), add %q to trustedFolders in %s, or use `git loop install copilot --user`", where, cfgPath),
	}, true
}
