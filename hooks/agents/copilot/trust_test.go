//go:build unix

package copilot_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
	"github.com/git-loop/git-loop/testdata/realagents/trust"
)

// TestCopilotTrustMatchesCopilot runs Copilot CLI headless with and without folder trust and
// holds doctor's verdict to whether the project's hook ran.
func TestCopilotTrustMatchesCopilot(t *testing.T) {
	copilot := trust.RealAgent(t, "copilot")[0]
	home, repo := realagents.DoctorWorld(t)
	calls := trust.HookRecorder(t)
	url := trust.StubModel(t)
	for k, v := range map[string]string{"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false", "COPILOT_PROVIDER_TYPE": "anthropic",
		"COPILOT_PROVIDER_BASE_URL": url, "COPILOT_PROVIDER_API_KEY": "stub-not-a-key", "COPILOT_MODEL": "claude-sonnet-4.5"} {
		t.Setenv(k, v)
	}
	trust.InstallText(t, "copilot", repo, false)
	config := filepath.Join(home, ".copilot", "config.json")
	args := []string{copilot, "-p", "hi", "--allow-all-tools", "--disable-client-telemetry", "--output-format", "json"}
	for _, tc := range []struct {
		name, config, allowAll string
	}{
		{name: "no trust"},
		{name: "the folder", config: `{"trustedFolders": ["{REPO}"]}`},
		{name: "a parent", config: "// managed\n{\"trustedFolders\": [\"{PARENT}\"]}"},
		{name: "COPILOT_ALLOW_ALL=true", allowAll: "true"},
		{name: "COPILOT_ALLOW_ALL=1", allowAll: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(config)
			if tc.config != "" {
				realagents.WriteString(t, config, strings.NewReplacer("{REPO}", repo, "{PARENT}", filepath.Dir(repo)).Replace(tc.config))
			}
			t.Setenv("COPILOT_ALLOW_ALL", tc.allowAll)
			verdict := trust.DoctorVerdict(repo, "copilot", "project")
			code, out := trust.RunAgent(t, repo, nil, args...)
			if ran := strings.Contains(calls(), "copilot agent-stop"); verdict != strconv.FormatBool(ran) {
				t.Errorf("doctor says runs=%s; Copilot exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
			}
		})
	}
	t.Run("--trust-folder", func(t *testing.T) {
		os.Remove(config)
		code, out := trust.RunAgent(t, repo, nil, append(args, "--trust-folder")...)
		if !strings.Contains(calls(), "copilot agent-stop") {
			t.Errorf("the project hook did not run with --trust-folder (exit %d)\n%s", code, trust.TailString(out, 1500))
		}
	})
	t.Run("the user's hook", func(t *testing.T) {
		os.Remove(config)
		os.RemoveAll(filepath.Join(repo, ".github"))
		trust.InstallText(t, "copilot", "", true)
		verdict := trust.DoctorVerdict(repo, "copilot", "user")
		code, out := trust.RunAgent(t, repo, nil, args...)
		if ran := strings.Contains(calls(), "copilot agent-stop"); !ran || verdict != "true" {
			t.Errorf("doctor says runs=%s; Copilot exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
		}
	})
}
