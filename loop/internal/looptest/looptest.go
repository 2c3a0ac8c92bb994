package looptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NewRepo makes a git repository in a temporary directory holding one untracked file,
// a.txt, with HOME and git's global configuration pointed at a fresh temporary home (user
// T, branch main, loop.shape tool) for the rest of the test.
func NewRepo(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, ".gitconfig")
	// The engine's tests start loops with tiny prompts ("p"): they run as tools, not shaped
	// by their spec's score (shape_test.go tests shaping).
	os.WriteFile(cfg, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n[loop]\n\tshape = tool\n"), 0o666)
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o666)
	return dir
}

// GitOut runs git in dir and returns its output trimmed, failing the test if git fails.
func GitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Intp is a pointer to n.
func Intp(n int) *int { return &n }
