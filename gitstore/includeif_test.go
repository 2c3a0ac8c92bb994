package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncludeIfMatchesGit: for each includeIf condition in the global configuration, the
// identity git-loop reads is the one `git config user.name` gives in the same repository.
func TestIncludeIfMatchesGit(t *testing.T) {
	refsHermetic(t)
	home := os.Getenv("HOME")
	work := filepath.Join(home, "Work", "Proj")
	refsGit(t, home, "init", "-q", work)
	refsGit(t, work, "commit", "-q", "--allow-empty", "-m", "base")
	refsGit(t, work, "checkout", "-q", "-b", "feature/x")
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	for _, cond := range []string{
		"gitdir:~/Work/",
		"gitdir:~/work/",   // case differs: no match
		"gitdir/i:~/work/", // unless case-insensitive
		"gitdir:Proj/.git",
		"gitdir:Proj/",
		"gitdir:" + filepath.ToSlash(work) + "/.git",
		"gitdir:" + filepath.ToSlash(home) + "/*/Proj/",
		"gitdir:" + filepath.ToSlash(home) + "/*/",
		"gitdir:./Work/",
		"gitdir:./Nope/",
		"gitdir:**/Proj/**",
		"gitdir:/elsewhere/",
		"onbranch:feature/x",
		"onbranch:feature/",
		"onbranch:feature/*",
		"onbranch:main",
		"onbranch:feat*",
		"hasconfig:remote.*.url:https://example.com/**",
	} {
		t.Run(cond, func(t *testing.T) {
			cfg := "[user]\n\tname = Loop Tester\n\temail = loop@example.com\n" +
				"[includeIf \"" + cond + "\"]\n\tpath = " + filepath.Join(home, "inc.gitconfig") + "\n"
			os.WriteFile(global, []byte(cfg), 0o644)
			os.WriteFile(filepath.Join(home, "inc.gitconfig"), []byte("[user]\n\tname = Included\n"), 0o644)
			want := strings.TrimSpace(refsGit(t, work, "config", "user.name"))
			r, err := Open(work)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Config.Get("user", "", "name"); got != want {
				t.Errorf("includeIf %q: user.name %q, git says %q", cond, got, want)
			}
		})
	}
}
