package hooks

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/agents"
	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestDoctor(t *testing.T) {
	home, repo := realagents.DoctorWorld(t)
	rep := Doctor(repo)
	if rep.OK || rep.Installed() || len(rep.Agents) != len(agents.All) { // no agent would run a loop
		t.Fatalf("nothing installed: %+v", rep)
	}
	for _, a := range rep.Agents {
		if len(a.Hooks) != 0 || a.Install != "git loop install "+a.Agent {
			t.Errorf("nothing installed, yet %+v", a)
		}
	}
	for _, agent := range []string{"claude", "codex", "gemini", "cursor", "copilot", "qwen", "opencode"} {
		if _, err := Install(agent, repo, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Install("copilot", repo, true); err != nil {
		t.Fatal(err)
	}
	rep = Doctor(repo)
	runs := map[string]bool{}
	for _, a := range rep.Agents {
		for _, h := range a.Hooks {
			runs[a.Agent+" "+h.Scope] = h.Runs
			if h.Runs != (len(h.Problems) == 0) {
				t.Errorf("%s %s: runs %v with problems %+v", a.Agent, h.Scope, h.Runs, h.Problems)
			}
		}
	}
	want := map[string]bool{"claude project": true, "codex project": false, "gemini project": false, "cursor project": true,
		"copilot project": false, "copilot user": true, "qwen project": true, "opencode project": true}
	if len(runs) != len(want) {
		t.Errorf("hooks found: %v, want %v", runs, want)
	}
	for k, v := range want {
		if runs[k] != v {
			t.Errorf("%s runs = %v, want %v", k, runs[k], v)
		}
	}
	if rep.OK {
		t.Error("OK with hooks that will not run")
	}
	text := rep.String()
	for _, s := range []string{
		"Codex does not trust " + repo + " yet", "codex exec --trust",
		"Gemini CLI runs a project's hooks only in a trusted folder", `"TRUST_FOLDER"`,
		"--trust-folder", "Copilot CLI also runs git-loop's hooks from", "git-loop judges each stop once",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the report does not say %q:\n%s", s, text)
		}
	}

	// What the person does once, then everything runs.
	realagents.WriteString(t, filepath.Join(home, ".codex", "config.toml"),
		realagents.ReadString(t, filepath.Join(home, ".codex", "config.toml"))+"\n[projects."+fileedit.QuoteTOML(repo)+"]\ntrust_level = \"trusted\"\n")
	realagents.WriteString(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+fileedit.QuoteTOML(repo)+`: "TRUST_FOLDER"}`)
	realagents.WriteString(t, filepath.Join(home, ".copilot", "config.json"), `{"trustedFolders": [`+fileedit.QuoteTOML(repo)+`]}`)
	if rep = Doctor(repo); !rep.OK {
		t.Errorf("not OK once trusted:\n%s", rep)
	}

	// A changed hook is no longer the one reviewed; git-loop on PATH is needed by all.
	hooksJSON := filepath.Join(repo, ".codex", "hooks.json")
	realagents.WriteString(t, hooksJSON, strings.Replace(realagents.ReadString(t, hooksJSON), "660", "300", 1))
	t.Setenv("PATH", t.TempDir())
	rep = Doctor(repo)
	copies := 0
	for _, a := range rep.Agents {
		copies += len(a.Hooks)
	}
	if rep.OK || !strings.Contains(rep.String(), "changed since it was reviewed") || strings.Count(rep.String(), "git-loop is not on PATH") != copies {
		t.Errorf("after the edit, without git-loop on PATH:\n%s", rep)
	}
	var back DoctorReport
	b, _ := json.Marshal(rep)
	if err := json.Unmarshal(b, &back); err != nil || back.String() != rep.String() {
		t.Errorf("JSON round trip: %v\n%s", err, b)
	}
}

func TestDoctorOutsideAWorktree(t *testing.T) {
	home, _ := realagents.DoctorWorld(t)
	if _, err := Install("gemini", "", true); err != nil {
		t.Fatal(err)
	}
	rep := Doctor("")
	if !rep.OK || !strings.HasPrefix(rep.String(), "not in a git worktree: only the user's hooks were checked\n") {
		t.Errorf("%s", rep)
	}
	if !strings.Contains(rep.String(), "Gemini CLI: user hook "+filepath.Join(home, ".gemini", "settings.json")+" runs") ||
		!strings.Contains(rep.String(), "(git loop install codex --user)") {
		t.Errorf("%s", rep)
	}
}

// TestDoctorNextStep: what start says about who works on a new loop, from doctor's report.
func TestDoctorNextStep(t *testing.T) {
	runs := HookDoctor{Scope: "project", Runs: true}
	idle := HookDoctor{Scope: "project", Problems: []Problem{{Why: "untrusted", Fix: "trust it"}}}
	claude := func(h ...HookDoctor) AgentDoctor {
		return AgentDoctor{Agent: "claude", Product: "Claude Code", Hooks: h}
	}
	codex := func(h ...HookDoctor) AgentDoctor { return AgentDoctor{Agent: "codex", Product: "Codex", Hooks: h} }
	driver := "           or let git-loop drive a headless agent, no hook needed: `git loop run -- claude -p`\n"
	for _, tc := range []struct {
		name   string
		agents []AgentDoctor
		want   string
	}{
		{"none installed", []AgentDoctor{claude(), codex()},
			"next:      no agent has git-loop's hook installed here, so none works on this loop yet: `git loop install claude` (or codex, gemini, cursor, copilot, qwen, droid, opencode), then start the agent\n" + driver},
		{"one runs", []AgentDoctor{claude(runs), codex()},
			"next:      work with Claude Code (`claude`) here: git-loop's hook runs at each of its stops\n" + driver},
		{"two run, one of them twice", []AgentDoctor{claude(runs, idle), codex(runs)},
			"next:      work with Claude Code (`claude`) or Codex (`codex`) here: git-loop's hook runs at each of its stops\n" + driver},
		{"one runs, one idle", []AgentDoctor{claude(runs), codex(idle)},
			"next:      work with Claude Code (`claude`) here: git-loop's hook runs at each of its stops\n" +
				"           Codex has git-loop's hook installed, but would not run it: `git loop doctor` says why\n" + driver},
		{"only idle", []AgentDoctor{claude(), codex(idle)},
			"next:      Codex has git-loop's hook installed, but would not run it, so no agent works on this loop yet: `git loop doctor` says why and the fix\n" + driver},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (DoctorReport{Agents: tc.agents}).NextStep(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
