//go:build unix

package droid_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
	"github.com/git-loop/git-loop/testdata/realagents/trust"
)

// TestDroidHooksMatchDroid runs Droid headless (droid exec) with git-loop's hook installed
// and, beside it, the files that hide it or turn hooks off, and holds doctor's verdict to
// whether the hook ran. Droid talks to a stub model (its custom model, Anthropic's protocol)
// and every Factory endpoint is the stub too.
func TestDroidHooksMatchDroid(t *testing.T) {
	droid := trust.RealAgent(t, "droid")[0]
	home, repo := realagents.DoctorWorld(t)
	calls := trust.HookRecorder(t)
	url := trust.StubModel(t)
	for k, v := range map[string]string{"FACTORY_API_BASE_URL": url, "FACTORY_TELEMETRY_INGEST_BASE_URL": url,
		"OTEL_PRODUCT_ENDPOINT": url, "OTEL_CUSTOMER_ENDPOINT": url, "FACTORY_DISABLE_DYNAMIC_CONFIG": "1",
		"FACTORY_OTEL_ENABLED": "false", "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false", "FACTORY_DISABLE_KEYRING": "1"} {
		t.Setenv(k, v)
	}
	models := `"customModels": [{"model": "claude-sonnet-4-5", "displayName": "Stub", "baseUrl": "` + url +
		`", "apiKey": "stub-not-a-key", "provider": "anthropic", "maxOutputTokens": 1024}]`
	userSettings := filepath.Join(home, ".factory", "settings.json")
	args := []string{droid, "exec", "-m", "custom:Stub-0", "--auto", "low", "hi"}
	project := filepath.Join(repo, ".factory")
	otherStop := `{"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}`
	oursStop := `{"Stop": [{"hooks": [{"type": "command", "command": "git-loop hook droid stop", "timeout": 660}]}]}`
	for _, tc := range []struct {
		name  string
		user  bool              // git-loop's hook installed for the user, not the project
		files map[string]string // more files, relative to the project's .factory (P/) or the user's (U/)
		hooks string            // more members of the installed settings.json's "hooks"
		uhook string            // members of the user's settings.json's "hooks"
	}{
		{name: "the project's"},
		{name: "a hooks.json without Stop", files: map[string]string{"P/hooks.json": `{"PreToolUse": []}`}},
		{name: "a hooks.json with another Stop hook", files: map[string]string{"P/hooks.json": otherStop}},
		{name: "a hooks.json with an empty Stop list", files: map[string]string{"P/hooks.json": `{"Stop": []}`}},
		{name: "a hooks.json with git-loop's Stop hook", files: map[string]string{"P/hooks.json": oursStop}},
		{name: "the older hooks/hooks.json", files: map[string]string{"P/hooks/hooks.json": otherStop}},
		{name: "hooks.json before hooks/hooks.json", files: map[string]string{"P/hooks.json": `{}`, "P/hooks/hooks.json": otherStop}},
		{name: "the user's hooks.json hides only the user's", files: map[string]string{"U/hooks.json": otherStop}},
		{name: "hooks off in the project", hooks: `"hooksDisabled": true`},
		{name: "hooks on in the project", hooks: `"hooksDisabled": false`},
		{name: "hooks off in the user's settings", uhook: `"hooksDisabled": true`},
		{name: "hooks off in the user's hooks.json", files: map[string]string{"U/hooks.json": `{"hooksDisabled": true}`}},
		{name: "the user's", user: true},
		{name: "the user's, hidden by the user's hooks.json", user: true, files: map[string]string{"U/hooks.json": otherStop}},
		{name: "the user's, hooks off in the project", user: true, files: map[string]string{"P/settings.json": `{"hooks": {"hooksDisabled": true}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(project)
			os.RemoveAll(filepath.Join(home, ".factory"))
			uhooks := ""
			if tc.uhook != "" {
				uhooks = `, "hooks": {` + tc.uhook + `}`
			}
			realagents.WriteString(t, userSettings, "{"+models+`, "cloudSessionSync": false`+uhooks+"}\n")
			for name, text := range tc.files {
				path := filepath.Join(project, strings.TrimPrefix(name, "P/"))
				if rest, ok := strings.CutPrefix(name, "U/"); ok {
					path = filepath.Join(home, ".factory", rest)
				}
				realagents.WriteString(t, path, text)
			}
			scope := "project"
			if tc.user {
				scope = "user"
				trust.InstallText(t, "droid", "", true)
			} else {
				trust.InstallText(t, "droid", repo, false)
			}
			if tc.hooks != "" {
				path := filepath.Join(project, "settings.json")
				s := realagents.ReadString(t, path)
				realagents.WriteString(t, path, strings.Replace(s, `"hooks": {`, `"hooks": {`+tc.hooks+`,`, 1))
			}
			verdict := trust.DoctorVerdict(repo, "droid", scope)
			code, out := trust.RunAgent(t, repo, nil, args...)
			ran := strings.Contains(calls(), "droid stop")
			if verdict != strconv.FormatBool(ran) {
				t.Errorf("doctor says runs=%s; Droid exited %d, hook ran: %v\n%s", verdict, code, ran, trust.TailString(out, 1500))
			}
			if code != 0 {
				t.Errorf("droid exited %d:\n%s", code, trust.TailString(out, 1500))
			}
		})
	}
}
