//go:build unix

package droid_test

import (
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs Factory Droid through every scenario the agents share.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "droid")
}

// Droid runs every copy of the hook installed for it, the user's and the project's, at once
// (realagents.BothHooks). The user's copy goes into the settings.json that holds Droid's
// custom model, which must keep working.
func TestRealAgentDroidBothHooks(t *testing.T) {
	t.Parallel()
	realagents.BothHooks(t, "droid", 2)
}

// Droid has no cap on blocks in a row (its code keeps none, unlike Claude Code's and Copilot
// CLI's 8): the model never acts and never promises, the breakers and the limit are set
// high, and every one of 19 blocks in a row is honoured; the loop's own limit ends it.
func TestRealAgentDroidNoBlockCap(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "droid")
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{{Text: "Still looking into it."}})
	e.InstallHooks()
	for _, key := range []string{"loop.sameErrorLimit", "loop.noProgressLimit", "loop.stuckLimit", "loop.reworkLimit"} {
		e.Git("config", key, "50")
	}
	e.StartLoop("--max-iterations", "20")
	r := e.RunAgent(realagents.AgentTimeout, realagents.Task)
	t.Logf("droid ran in %v", r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("droid exited %d", r.Code)
	}
	stops := e.StopHooks()
	blocked := 0
	for _, s := range stops {
		if s.Reason() != "" {
			blocked++
		}
	}
	if len(stops) != 20 || blocked != 19 || stops[19].Reason() != "" {
		t.Errorf("the hook ran %d times and blocked %d; want 19 blocks honoured and the 20th stop let through", len(stops), blocked)
	}
	if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 20 || !strings.Contains(st.Reason, "max iterations") {
		t.Errorf("loop %s at iteration %d (%s), want paused at its limit, iteration 20", st.Status, st.Iteration, st.Reason)
	}
	e.Fsck()
}
