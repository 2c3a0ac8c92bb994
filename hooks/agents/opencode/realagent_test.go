//go:build unix

package opencode_test

import (
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs OpenCode through every scenario the agents share: its runs attach to
// the scenario's `opencode serve` (realagents.Env.OpenCodeServer), where git-loop's plugin
// continues the session; the driver runs plain `opencode run`.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "opencode")
}

// TestRealAgentOpenCodeTUI: in OpenCode's TUI, which serves its session in-process, the
// plugin continues the session as under `opencode serve`: the false claim is sent back, the
// reason reaching the model word for word as the next prompt, and the fix and a fresh
// promise complete the loop at iteration 2.
func TestRealAgentOpenCodeTUI(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "opencode")
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: realagents.FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.StartLoop()
	start := time.Now()
	tui := e.StartTUI(realagents.Task)
	st := e.Status("fix")
	for ; st.Status == "active" && time.Since(start) < realagents.AgentTimeout; st = e.Status("fix") {
		time.Sleep(time.Second)
	}
	t.Logf("the loop ended %v after the TUI started", time.Since(start).Round(100*time.Millisecond))
	tui.Stop()
	if st.Status != "completed" || st.Iteration != 2 {
		t.Fatalf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	stops := e.StopHooks()
	if len(stops) != 2 || stops[1].Reason() != "" {
		t.Fatalf("the hook ran %d times, want 2: the false claim sent back, the fix let through", len(stops))
	}
	reason := strings.TrimSpace(stops[0].Reason())
	if next := e.MainRequest(0, 1); reason == "" || strings.TrimSpace(next.LastUser) != reason {
		t.Errorf("the block reason did not reach the model word for word as the next prompt:\nreason: %q\nnext: %q", reason, next.LastUser)
	}
	e.CheckLog("continue", "complete")
	e.Fsck()
}

// OpenCode loads every copy of git-loop's plugin, the project's and the user's, and calls
// both at each idle: the copies share one guard, so one of them runs the hook, each stop is
// judged once and the session is continued once.
func TestRealAgentOpenCodeBothPlugins(t *testing.T) {
	t.Parallel()
	realagents.BothHooks(t, "opencode", 1)
}
