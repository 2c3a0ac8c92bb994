//go:build unix

package copilot_test

import (
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs Copilot CLI through every scenario the agents share.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "copilot")
}

// Copilot CLI runs every copy of the hook installed for it, the user's and the project's
// (realagents.BothHooks).
func TestRealAgentCopilotBothHooks(t *testing.T) {
	t.Parallel()
	realagents.BothHooks(t, "copilot", 2)
}
