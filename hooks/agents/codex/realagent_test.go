//go:build unix

package codex_test

import (
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs Codex CLI through every scenario the agents share.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "codex")
}
