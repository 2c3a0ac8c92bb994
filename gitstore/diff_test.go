package gitstore

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// TestChangedPathsMatchesGit compares ChangedPaths with `git diff --name-only` between two
// real commits covering additions, deletions, edits, mode changes and file/directory swaps.
func TestChangedPathsMatchesGit(t *testing.T) {
	dir := t.TempDir()
	sh := func(script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	sh(`git init -q && mkdir -p a/b c && echo 1 > a/b/f && echo 2 > a/g && echo 3 > c/h && echo 4 > x && echo 5 > y &&
		git add -A && git commit -qm one`)
	sh(`echo 1b > a/b/f && rm c/h && chmod +x x && rm y && mkdir y && echo 6 > y/z && echo 7 > new &&
		git add -A && git commit -qm two`)
	want := strings.Fields(sh(`git diff --name-only --no-renames HEAD~1 HEAD`))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := func(rev string) Hash {
		h, err := ParseHash(sh("git rev-parse " + rev + "^{tree}"))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	got, err := r.ChangedPaths(tree("HEAD~1"), tree("HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ChangedPaths = %v, git says %v", got, want)
	}
}
