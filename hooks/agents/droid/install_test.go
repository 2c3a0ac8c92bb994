package droid

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
)

// userSettings is a user's ~/.factory/settings.json as Droid writes it (two spaces,
// JSON.stringify's layout): custom models with their keys, the model chosen, the folders
// trusted at the interactive droid's prompt.
const userSettings = `{
  "customModels": [
    {
      "model": "qwen3-coder:30b",
      "displayName": "Qwen3 Coder (local)",
      "baseUrl": "http://localhost:11434/v1",
      "apiKey": "not-needed",
      "provider": "generic-chat-completion-api",
      "maxOutputTokens": 16384
    },
    {
      "model": "claude-sonnet-4-5-20250929",
      "displayName": "Sonnet (BYOK)",
      "baseUrl": "https://api.anthropic.com",
      "apiKey": "sk-ant-\u00e9xample",
      "provider": "anthropic",
      "maxOutputTokens": 8192
    }
  ],
  "sessionDefaultSettings": {
    "model": "custom:Qwen3-Coder-(local)-0",
    "reasoningEffort": "none",
    "autonomyMode": "auto-low"
  },
  "trustedFolders": {
    "/home/me/src/calc": {
      "trustedAt": "2026-11-20T09:12:44.118Z"
    }
  }
}`

// TestInstallUserKeepsCustomModels: install --user merges git-loop's Stop hook into the
// settings.json that holds the person's custom models, keeping every byte of them (the
// escape in a key included), and adds nothing a second time.
func TestInstallUserKeepsCustomModels(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".factory", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := kit.InstallHooks(path, hookFile)
	if err != nil || len(res.Added) != 1 {
		t.Fatalf("install: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(path)
	want := strings.TrimSuffix(userSettings, "\n}") + `,
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "git-loop hook droid stop",
            "timeout": 660
          }
        ]
      }
    ]
  }
}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var s struct {
		CustomModels []map[string]any `json:"customModels"`
	}
	if err := json.Unmarshal(got, &s); err != nil || len(s.CustomModels) != 2 || s.CustomModels[1]["apiKey"] != "sk-ant-éxample" {
		t.Errorf("the custom models do not read back: %+v, %v", s, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept (it holds API keys)", fi.Mode().Perm())
	}
	again, err := kit.InstallHooks(path, hookFile)
	if after, _ := os.ReadFile(path); err != nil || again.Changed() || !bytes.Equal(after, got) {
		t.Errorf("a second install changed the file: %+v, %v", again, err)
	}
}

func TestCheck(t *testing.T) {
	const ours = `{"type": "command", "command": "git-loop hook droid stop", "timeout": 660}`
	for _, tc := range []struct {
		name  string
		files map[string]string // relative to the project (REPO/) or the home (HOME/)
		user  bool              // the user's copy (doctor checks it for the project too)
		want  []string          // a piece of each problem's Why, in order
		note  bool              // the interactive droid's trust note
	}{
		{name: "nothing else", note: true},
		{name: "trusted folder", files: map[string]string{"HOME/.factory/settings.json": `{"trustedFolders": {"REPO": {"trustedAt": "x"}}}`}},
		{name: "trusted parent", files: map[string]string{"HOME/.factory/settings.json": `{"trustedFolders": {"ROOT": {}}}`}},
		{name: "a sibling is not trusted", files: map[string]string{"HOME/.factory/settings.json": `{"trustedFolders": {"REPO-other": {}}}`}, note: true},
		{name: "hooks.json without Stop", files: map[string]string{"REPO/.factory/hooks.json": `{"PreToolUse": []}`}, note: true},
		{name: "hooks.json with Stop", files: map[string]string{"REPO/.factory/hooks.json": `{"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}`},
			want: []string{"hooks.json lists Stop hooks"}, note: true},
		{name: "hooks.json with an empty Stop", files: map[string]string{"REPO/.factory/hooks.json": `{"Stop": []}`},
			want: []string{"hooks.json lists Stop hooks"}, note: true},
		{name: "hooks.json with ours", files: map[string]string{"REPO/.factory/hooks.json": `{"Stop": [{"hooks": [` + ours + `]}]}`}, note: true},
		{name: "the older hooks/hooks.json", files: map[string]string{"REPO/.factory/hooks/hooks.json": `{"Stop": [{"hooks": []}]}`},
			want: []string{"hooks/hooks.json lists Stop hooks"}, note: true},
		{name: "hooks.json first, hooks/hooks.json unread", files: map[string]string{"REPO/.factory/hooks.json": `{}`,
			"REPO/.factory/hooks/hooks.json": `{"Stop": []}`}, note: true},
		{name: "hooks.json not JSON: Droid ignores it", files: map[string]string{"REPO/.factory/hooks.json": `{"Stop": [`}, note: true},
		{name: "the user's hooks.json hides only the user's", files: map[string]string{"HOME/.factory/hooks.json": `{"Stop": []}`}, note: true},
		{name: "the user's hooks.json hides the user's copy", user: true, files: map[string]string{"HOME/.factory/hooks.json": `{"Stop": []}`},
			want: []string{"hooks.json lists Stop hooks"}, note: true},
		{name: "hooks off in the project", files: map[string]string{"REPO/.factory/settings.json": `{"hooks": {"hooksDisabled": true}}`},
			want: []string{`turns Factory Droid's hooks off`}, note: true},
		{name: "hooks off in the user's hooks.json", files: map[string]string{"HOME/.factory/hooks.json": `{"hooksDisabled": true}`},
			want: []string{`turns Factory Droid's hooks off`}, note: true},
		{name: "hooks on", files: map[string]string{"REPO/.factory/settings.json": `{"hooks": {"hooksDisabled": false}}`}, note: true},
		{name: "the user's copy: the project's hooks off count", user: true, files: map[string]string{"REPO/.factory/settings.json": "// mine\n{\"hooks\": {\"hooksDisabled\": true}}"},
			want: []string{`turns Factory Droid's hooks off`}, note: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FACTORY_HOME_OVERRIDE", "")
			root := t.TempDir()
			home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
			fill := strings.NewReplacer("ROOT", root, "REPO", repo, "HOME", home).Replace
			for name, text := range tc.files {
				path := fill(name)
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(fill(text)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			problems, notes := check(kit.HookCheck{Dir: repo, Home: home, User: tc.user})
			if len(problems) != len(tc.want) {
				t.Fatalf("problems %+v, want %d", problems, len(tc.want))
			}
			for i, p := range problems {
				if !strings.Contains(p.Why, tc.want[i]) || p.Fix == "" {
					t.Errorf("problem %+v, want one saying %q with a fix", p, tc.want[i])
				}
			}
			if (len(notes) > 0) != tc.note {
				t.Errorf("notes %q, want a trust note: %v", notes, tc.note)
			}
		})
	}
}

func TestUserFolder(t *testing.T) {
	t.Setenv("FACTORY_HOME_OVERRIDE", "")
	if got := userFile("/h"); got != filepath.Join("/h", ".factory", "settings.json") {
		t.Errorf("userFile = %s", got)
	}
	t.Setenv("FACTORY_HOME_OVERRIDE", "/elsewhere")
	if got := userFile("/h"); got != filepath.Join("/elsewhere", ".factory", "settings.json") {
		t.Errorf("with FACTORY_HOME_OVERRIDE, userFile = %s", got)
	}
}

// FuzzHooksJSON: whatever a hooks.json holds, reading it and checking it for git-loop's Stop
// hook neither panics nor says both "hidden" and "runs ours".
func FuzzHooksJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"Stop": []}`, `{"Stop": [{"hooks": [{"command": "git-loop hook droid stop"}]}]}`,
		`{"Stop": null}`, `{"Stop": {}}`, `{"hooksDisabled": "true"}`, `{"hooksDisabled": true}`, `[]`, `// c` + "\n{}", ``,
		`{"Stop": [1, "x", {"hooks": "y"}, {"hooks": [null, {"command": 1}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		folder := filepath.Join(t.TempDir(), ".factory")
		os.MkdirAll(folder, 0o755)
		if err := os.WriteFile(filepath.Join(folder, "hooks.json"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
		p, hidden := hiddenBy(folder)
		if hidden && (p.Why == "" || p.Fix == "") {
			t.Fatalf("%q: a problem without its reason or fix: %+v", doc, p)
		}
		lists, _, found := readHooksJSON(filepath.Join(folder, "hooks.json"))
		var groups []json.RawMessage
		if hidden && (!found || json.Unmarshal(lists["Stop"], &groups) != nil || runsOurs(groups)) {
			t.Fatalf("%q: hidden, yet Droid would not read its Stop list or it runs git-loop's", doc)
		}
		hooksOff(folder)
	})
}
