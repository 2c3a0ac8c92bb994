//go:build unix

package copilot_test

import (
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs Copilot CLI through every scenario the agents share.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "copilot")
}

// Copilot CLI runs every copy of the hook installed for it: with git-loop's hook installed
// for the user and for the project, both run at each stop. Each stop is still judged once
// (the false claim is iteration 1, the fix iteration 2), and both copies answer it alike.
func TestRealAgentCopilotBothHooks(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "copilot")
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: realagents.FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.Loop("install", "copilot", "--user")
	e.StartLoop()
	r := e.RunAgent(realagents.AgentTimeout, realagents.Task)
	t.Logf("copilot ran in %v", r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("copilot exited %d", r.Code)
	}
	e.SavePayloads(realagents.PayloadDir(), "both-hooks")
	stops := e.StopHooks()
	if len(stops) != 4 {
		t.Fatalf("the hooks ran %d times, want 4 (two copies at each of two stops)", len(stops))
	}
	for i := 0; i < 4; i += 2 {
		a, b := stops[i], stops[i+1]
		if a.Payload != b.Payload {
			t.Errorf("stop %d: the two copies got different payloads:\n%s\n%s", i/2+1, a.Payload, b.Payload)
		}
		if a.Answer != b.Answer {
			t.Errorf("stop %d: the two copies answered differently:\n%s\n%s", i/2+1, a.Answer, b.Answer)
		}
	}
	if stops[0].Reason() == "" || stops[2].Reason() != "" {
		t.Errorf("want the false claim sent back and the fix let through")
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "complete")
	e.Fsck()
}
