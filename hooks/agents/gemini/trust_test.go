//go:build unix

package gemini_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
	"github.com/git-loop/git-loop/testdata/realagents/trust"
)

// TestGeminiTrustMatchesGemini runs Gemini CLI headless in folders it trusts or not and holds
// doctor's verdict to whether the project's hook ran.
func TestGeminiTrustMatchesGemini(t *testing.T) {
	gemini := trust.RealAgent(t, "gemini")
	home, repo := realagents.DoctorWorld(t)
	calls := trust.HookRecorder(t)
	url := trust.StubModel(t)
	t.Setenv("GEMINI_API_KEY", "stub-not-a-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", url)
	t.Setenv("GEMINI_CLI_NO_RELAUNCH", "true")
	t.Setenv("NO_BROWSER", "true")
	settings := filepath.Join(home, ".gemini", "settings.json")
	offline := func(security string) string {
		return `{"security": {"auth": {"selectedType": "gemini-api-key"}` + security + `},
		  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`
	}
	trust.InstallText(t, "gemini", repo, false)
	folders := filepath.Join(home, ".gemini", "trustedFolders.json")
	parent := filepath.Dir(repo)
	for _, tc := range []struct {
		name, folders, folderTrust, env string
	}{
		{name: "no trust"},
		{name: "the folder", folders: `{"{REPO}": "TRUST_FOLDER"}`},
		{name: "TRUST_PARENT", folders: `{"{REPO}/x": "TRUST_PARENT"}`},
		{name: "a longer DO_NOT_TRUST", folders: `{"{PARENT}": "TRUST_FOLDER", "{REPO}": "DO_NOT_TRUST"}`},
		{name: "an unknown level", folders: `{"{REPO}": "TRUST"}`},
		{name: "folder trust off", folderTrust: `, "folderTrust": {"enabled": false}`},
		{name: "GEMINI_CLI_TRUST_WORKSPACE=true", env: "GEMINI_CLI_TRUST_WORKSPACE=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(folders)
			if tc.folders != "" {
				realagents.WriteString(t, folders, strings.NewReplacer("{REPO}", repo, "{PARENT}", parent).Replace(tc.folders))
			}
			realagents.WriteString(t, settings, offline(tc.folderTrust))
			if tc.env != "" {
				k, v, _ := strings.Cut(tc.env, "=")
				t.Setenv(k, v)
			}
			verdict := trust.DoctorVerdict(repo, "gemini", "project")
			code, out := trust.RunAgent(t, repo, nil, append(gemini, "-p", "hi", "--yolo", "--output-format", "json")...)
			ran := strings.Contains(calls(), "gemini after-agent")
			if verdict != strconv.FormatBool(ran) {
				t.Errorf("doctor says runs=%s; Gemini exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
			}
			if !ran && code != 55 && code != 52 { // 52: Gemini refuses a trustedFolders.json it cannot read
				t.Errorf("an untrusted folder: exit %d, want 55", code)
			}
		})
	}
	t.Run("the user's hook, --skip-trust", func(t *testing.T) {
		os.Remove(folders)
		realagents.WriteString(t, settings, offline(""))
		os.RemoveAll(filepath.Join(repo, ".gemini"))
		trust.InstallText(t, "gemini", "", true)
		verdict := trust.DoctorVerdict(repo, "gemini", "user")
		code, out := trust.RunAgent(t, repo, nil, append(gemini, "-p", "hi", "--yolo", "--skip-trust", "--output-format", "json")...)
		if ran := strings.Contains(calls(), "gemini after-agent"); !ran || verdict != "true" {
			t.Errorf("doctor says runs=%s; Gemini exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
		}
	})
}
