package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The world the doctor and install tests check agents in (the real agents' trust tests,
// hooks' own): shared here, below hooks, so that both can use it.

// DoctorWorld is a throwaway home (the agents' user files, HOME for the rest of the test)
// and a git repository, with a git-loop on PATH for the hook commands to find, and every
// variable of the agents' that moves their files or changes their trust unset.
func DoctorWorld(t *testing.T) (home, repo string) {
	t.Helper()
	root := t.TempDir()
	if p, err := filepath.EvalSymlinks(root); err == nil { // the paths agents and git print
		root = p
	}
	home, repo = filepath.Join(root, "home"), filepath.Join(root, "repo")
	bin := filepath.Join(root, "bin")
	WriteString(t, filepath.Join(bin, "git-loop"), "#!/bin/sh\nexit 0\n")
	if err := os.Chmod(filepath.Join(bin, "git-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"CODEX_HOME", "COPILOT_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
		"GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE", "COPILOT_ALLOW_ALL",
		"QWEN_HOME", "QWEN_CODE_TRUSTED_FOLDERS_PATH", "QWEN_CODE_STOP_HOOK_BLOCK_CAP", "FACTORY_HOME_OVERRIDE", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	Git(t, root, "init", "-q", repo)
	return home, repo
}

// Git runs git in dir with a hermetic configuration and fixed identity, failing t if it
// fails, and returns its output.
func Git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ReadString is the content of the file at path, failing t if it cannot be read.
func ReadString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WriteString writes s to the file at path, making its directory, failing t if it cannot.
func WriteString(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
