package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks/agents"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// TestStopTimeoutRoundTrip installs each agent's hooks in a worktree whose .gitloop has a
// 30-minute gate and reads the timeout back as the stop hook does: the same duration, written
// in the agent's unit; a shorter timeout in the user's file wins.
func TestStopTimeoutRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("COPILOT_HOME", "")
	t.Setenv("QWEN_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	want := loop.HookTimeout([]gates.Gate{{Name: "slow", Run: "true", Timeout: "30m"}}, nil)
	if want != 1860*time.Second {
		t.Fatalf("HookTimeout of a 30m gate = %v, want 31m", want)
	}
	tests := []struct {
		agent, event, unitText string
	}{
		{"claude", "stop", `"timeout": 1860`},
		{"claude", "subagent-stop", `"timeout": 1860`},
		{"codex", "stop", `"timeout": 1860`},
		{"gemini", "after-agent", `"timeout": 1860000`},
		{"cursor", "stop", `"timeout": 1860`},
		{"copilot", "agent-stop", `"timeoutSec": 1860`},
		{"qwen", "stop", `"timeout": 1860000`},
		{"opencode", "session-idle", "const hookTimeoutMs = 1860000;"}, // a plugin, in milliseconds
	}
	for _, tt := range tests {
		t.Run(tt.agent+" "+tt.event, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
			dir := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			os.WriteFile(filepath.Join(dir, ".gitloop"), []byte("[gate \"slow\"]\n\trun = true\n\ttimeout = 30m\n"), 0o644)
			res, err := Install(tt.agent, dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(res[0].Path); !strings.Contains(string(data), tt.unitText) {
				t.Fatalf("%s holds no %s:\n%s", res[0].Path, tt.unitText, data)
			}
			a := agents.Named(tt.agent)
			got, from := a.InstalledStopTimeout(tt.event, dir)
			if got != want || from != res[0].Path {
				t.Fatalf("read back %v from %q, want %v from %s", got, from, want, res[0].Path)
			}
			// The user's file gives less (its first judging hook is this one): the agent runs
			// both, and the shorter one bounds the hook.
			if _, err := Install(tt.agent, dir, true); err != nil {
				t.Fatal(err)
			}
			user := a.ReadsHooksFrom(dir)
			userFile := user[len(user)-1]
			data, err := os.ReadFile(userFile)
			if err != nil {
				t.Fatal(err)
			}
			shorter := strings.Replace(string(data), "1860", "300", 1) // Gemini's and OpenCode's 1860000 ms: 300000
			if tt.event == "subagent-stop" {
				shorter = strings.Replace(shorter, "1860", "300", 1)
			}
			os.WriteFile(userFile, []byte(shorter), 0o644)
			got, from = a.InstalledStopTimeout(tt.event, dir)
			if got != 300*time.Second || from != userFile {
				t.Fatalf("with the user's file at 300 s: %v from %q", got, from)
			}
		})
	}
}
