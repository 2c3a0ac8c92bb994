//go:build unix

package realagents

import (
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
)

// BothHooks is the scenario of git-loop's hook installed for the user and for the project,
// which the agent both loads: each stop is still judged once (the false claim is iteration
// 1, the fix iteration 2). copies is how many of the two run the hook at each stop: 2 where
// the agent runs every copy, at once and with the same payload (then both must answer
// alike), 1 where the copies themselves see that one runs already (OpenCode's plugins).
// The payloads are saved as both-hooks.
func BothHooks(t *testing.T, agent string, copies int) {
	t.Helper()
	inst := Require(t, agent)
	e := New(t, inst, BuiltGitLoop(t), mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.Loop("install", agent, "--user")
	e.StartLoop()
	r := e.RunAgent(AgentTimeout, Task)
	t.Logf("%s ran in %v", agent, r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("%s exited %d", agent, r.Code)
	}
	e.SavePayloads(PayloadDir(), "both-hooks")
	stops := e.StopHooks()
	if len(stops) != 2*copies {
		t.Fatalf("the hooks ran %d times, want %d (%d copies at each of two stops)", len(stops), 2*copies, copies)
	}
	for i := 0; copies == 2 && i < 4; i += 2 {
		a, b := stops[i], stops[i+1]
		if a.Payload != b.Payload {
			t.Errorf("stop %d: the two copies got different payloads:\n%s\n%s", i/2+1, a.Payload, b.Payload)
		}
		if a.Answer != b.Answer {
			t.Errorf("stop %d: the two copies answered differently:\n%s\n%s", i/2+1, a.Answer, b.Answer)
		}
	}
	if stops[0].Reason() == "" || stops[copies].Reason() != "" {
		t.Errorf("want the false claim sent back and the fix let through")
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "complete")
	e.Fsck()
}
