//go:build unix

package claude_test

import (
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
	"github.com/git-loop/git-loop/testdata/realagents/trust"
)

// TestClaudeRunsProjectHooks: Claude Code runs a project's hooks in -p mode with nothing
// more to do, as doctor says.
func TestClaudeRunsProjectHooks(t *testing.T) {
	claude := trust.RealAgent(t, "claude")[0]
	_, repo := realagents.DoctorWorld(t)
	calls := trust.HookRecorder(t)
	url := trust.StubModel(t)
	for k, v := range map[string]string{"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "stub-not-a-key", "DISABLE_TELEMETRY": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1"} {
		t.Setenv(k, v)
	}
	trust.InstallText(t, "claude", repo, false)
	verdict := trust.DoctorVerdict(repo, "claude", "project")
	code, out := trust.RunAgent(t, repo, nil, claude, "-p", "hi", "--dangerously-skip-permissions", "--output-format", "json")
	if ran := strings.Contains(calls(), "claude stop"); !ran || verdict != "true" {
		t.Errorf("doctor says runs=%s; Claude Code exited %d, stop hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
	}
}
