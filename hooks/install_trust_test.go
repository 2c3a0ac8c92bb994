package hooks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func installText(t *testing.T, agent, dir string, user bool) string {
	t.Helper()
	out, err := Install(agent, dir, user)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range out {
		b.WriteString(r.String())
	}
	return b.String()
}

func TestInstallReadiesHooks(t *testing.T) {
	for _, tc := range []struct {
		agent string
		user  bool
		says  []string // what the install says, besides the hooks it added
		not   string   // what it must not say
	}{
		{agent: "codex", says: []string{"added the review of Codex hook REPO/.codex/hooks.json:stop:0:0", "Codex will not run it yet: Codex does not trust REPO yet", "codex exec --trust"}},
		{agent: "codex", user: true, says: []string{"added the review of Codex hook HOME/.codex/hooks.json:stop:0:0"}, not: "will not run"},
		{agent: "gemini", says: []string{"Gemini CLI will not run it yet", `"REPO": "TRUST_FOLDER"`, "git loop install gemini --user"}},
		{agent: "gemini", user: true, not: "will not run"},
		{agent: "copilot", says: []string{"Copilot CLI will not run it yet", "--trust-folder", "COPILOT_ALLOW_ALL=true", "git loop install copilot --user"}},
		{agent: "copilot", user: true, not: "will not run"},
		{agent: "claude", not: "will not run"},
		{agent: "cursor", not: "will not run"},
		{agent: "opencode", not: "will not run"},
		{agent: "opencode", user: true, not: "will not run"},
	} {
		t.Run(tc.agent+map[bool]string{true: " --user"}[tc.user], func(t *testing.T) {
			home, repo := realagents.DoctorWorld(t)
			got := installText(t, tc.agent, repo, tc.user)
			for _, s := range tc.says {
				if s = strings.NewReplacer("REPO", repo, "HOME", home).Replace(s); !strings.Contains(got, s) {
					t.Errorf("install does not say %q:\n%s", s, got)
				}
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("install says %q:\n%s", tc.not, got)
			}
		})
	}
}

func TestInstallCodexKeepsConfig(t *testing.T) {
	home, repo := realagents.DoctorWorld(t)
	cfg := filepath.Join(home, ".codex", "config.toml")
	mine := "# my Codex\nmodel = \"o3\"\n\n[projects." + fileedit.QuoteTOML(repo) + "]\ntrust_level = \"trusted\" # yes\n"
	realagents.WriteString(t, cfg, mine)
	got := installText(t, "codex", repo, false)
	if strings.Contains(got, "will not run") {
		t.Errorf("a trusted project with its hook reviewed:\n%s", got)
	}
	after := realagents.ReadString(t, cfg)
	if !strings.HasPrefix(after, mine+"\n[hooks.state.") {
		t.Errorf("config.toml was not only appended to:\n%s", after)
	}
	if again := installText(t, "codex", repo, false); !strings.Contains(again, "already present in "+cfg) || realagents.ReadString(t, cfg) != after {
		t.Errorf("a second install changed config.toml:\n%s", again)
	}
	if rep := Doctor(repo); !rep.OK {
		t.Errorf("doctor after install:\n%s", rep)
	}
}

// In a linked worktree Codex reads the main checkout's hooks: install reviews those, and
// says so when the main checkout has none.
func TestInstallCodexLinkedWorktree(t *testing.T) {
	home, main := realagents.DoctorWorld(t)
	wt := filepath.Join(filepath.Dir(main), "wt")
	realagents.Git(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	realagents.Git(t, main, "worktree", "add", "-q", wt)
	got := installText(t, "codex", wt, false)
	if !strings.Contains(got, "in a linked worktree Codex reads the project's hooks from the main checkout, and "+
		filepath.Join(main, ".codex", "hooks.json")+" has none of git-loop's") || strings.Contains(got, "added the review") {
		t.Errorf("install in a worktree whose main checkout has no hook:\n%s", got)
	}
	installText(t, "codex", main, false)
	got = installText(t, "codex", wt, false)
	if !strings.Contains(got, "already present in "+filepath.Join(home, ".codex", "config.toml")+": the review of Codex hook "+filepath.Join(main, ".codex", "hooks.json")+":stop:0:0") {
		t.Errorf("install in a worktree whose main checkout has the hook:\n%s", got)
	}
	realagents.WriteString(t, filepath.Join(home, ".codex", "config.toml"), realagents.ReadString(t, filepath.Join(home, ".codex", "config.toml"))+
		"\n[projects."+fileedit.QuoteTOML(main)+"]\ntrust_level = \"trusted\"\n")
	if rep := Doctor(wt); !rep.OK {
		t.Errorf("doctor in the worktree, main checkout trusted and reviewed:\n%s", rep)
	}
}
