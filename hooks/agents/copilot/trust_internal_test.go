package copilot

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestCopilotTrustProblem(t *testing.T) {
	for _, tc := range []struct {
		name, config, allowAll string
		bad                    bool
	}{
		{name: "no config", bad: true},
		{name: "the folder", config: `{"trustedFolders": ["REPO"]}`},
		{name: "a parent", config: `{"trustedFolders": ["ROOT"]}`},
		{name: "a sibling", config: `{"trustedFolders": ["ROOT/other", "REPO-x"]}`, bad: true},
		{name: "the comments Copilot writes", config: "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": [\n    \"REPO\"\n  ]\n}\n"},
		{name: "COPILOT_ALLOW_ALL=true", allowAll: "true"},
		{name: "COPILOT_ALLOW_ALL=1 allows tools, trusts nothing", allowAll: "1", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := realagents.DoctorWorld(t)
			fill := strings.NewReplacer("ROOT", filepath.Dir(repo), "REPO", repo).Replace
			if tc.config != "" {
				realagents.WriteString(t, filepath.Join(home, ".copilot", "config.json"), fill(tc.config))
			}
			t.Setenv("COPILOT_ALLOW_ALL", tc.allowAll)
			if p, bad := trustProblem(repo, home); bad != tc.bad {
				t.Errorf("bad = %v (%+v), want %v", bad, p, tc.bad)
			}
		})
	}
}
