//go:build unix

package qwen_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
	"github.com/git-loop/git-loop/testdata/realagents/trust"
)

// offline is the user settings that keep the real Qwen Code on the mock and its usage
// statistics at home, with more settings (a case's) after them.
func offline(more string) string {
	return `{"security": {"auth": {"selectedType": "openai"}` + more + `},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`
}

// TestQwenTrustMatchesQwen runs Qwen Code headless in folders it trusts or not, and with its
// hooks turned off or not, and holds doctor's verdict to whether git-loop's hook ran.
func TestQwenTrustMatchesQwen(t *testing.T) {
	inst := realagents.Require(t, "qwen")
	home, repo := realagents.DoctorWorld(t)
	calls := trust.HookRecorder(t)
	mock, err := mockmodel.Start(mockmodel.Script{{Text: "Done."}})
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	t.Setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", filepath.Join(t.TempDir(), "settings.json"))
	env := []string{"PATH=" + filepath.Join(inst.Dir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH"), // its own Node.js
		"OPENAI_API_KEY=mock-key-not-a-secret", "OPENAI_BASE_URL=" + mock.URL + "/v1", "OPENAI_MODEL=mock-model"}
	qwen := []string{inst.Exe, "--yolo", "--output-format", "json", "hi"}
	settings := filepath.Join(home, ".qwen", "settings.json")
	folders := filepath.Join(home, ".qwen", "trustedFolders.json")
	const on = `, "folderTrust": {"enabled": true}`
	trust.InstallText(t, "qwen", repo, false)
	for _, tc := range []struct {
		name, security, more, folders string
	}{
		{name: "folder trust off, as by default"},
		{name: "an untrusted folder", security: on},
		{name: "the folder", security: on, folders: `{"{REPO}": "TRUST_FOLDER"}`},
		{name: "TRUST_PARENT", security: on, folders: `{"{REPO}/x": "TRUST_PARENT"}`},
		{name: "a deeper DO_NOT_TRUST", security: on, folders: `{"{PARENT}": "TRUST_FOLDER", "{REPO}": "DO_NOT_TRUST"}`},
		{name: "a tie", security: on, folders: `{"{REPO}/x": "TRUST_PARENT", "{REPO}": "DO_NOT_TRUST"}`},
		{name: "an unknown level beside a trusted parent", security: on, folders: `{"{PARENT}": "TRUST_FOLDER", "{REPO}": "MAYBE"}`},
		{name: "a trusted-folders file that is no object", security: on, folders: `["{REPO}"]`},
		{name: "hooks turned off", more: `, "disableAllHooks": true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(folders)
			if tc.folders != "" {
				realagents.WriteString(t, folders, strings.NewReplacer("{REPO}", repo, "{PARENT}", filepath.Dir(repo)).Replace(tc.folders))
			}
			text := offline(tc.security)
			text = text[:len(text)-1] + tc.more + "}"
			realagents.WriteString(t, settings, text)
			verdict := trust.DoctorVerdict(repo, "qwen", "project")
			code, out := trust.RunAgent(t, repo, env, qwen...)
			ran := strings.Contains(calls(), "qwen stop")
			if verdict != strconv.FormatBool(ran) {
				t.Errorf("doctor says runs=%s; Qwen Code exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
			}
		})
	}
	t.Run("the user's hook in an untrusted folder", func(t *testing.T) {
		os.Remove(folders)
		realagents.WriteString(t, settings, offline(on))
		os.RemoveAll(filepath.Join(repo, ".qwen"))
		trust.InstallText(t, "qwen", "", true)
		verdict := trust.DoctorVerdict(repo, "qwen", "user")
		code, out := trust.RunAgent(t, repo, env, qwen...)
		if ran := strings.Contains(calls(), "qwen stop"); !ran || verdict != "true" {
			t.Errorf("doctor says runs=%s; Qwen Code exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
		}
	})
}
