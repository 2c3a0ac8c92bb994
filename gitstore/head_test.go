package gitstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestResolveHeadAtMatchesGit checks ResolveHeadAt against `git rev-parse HEAD` for the
// shapes HEAD takes: unborn, loose and packed branches, detached, a linked worktree, and a
// symbolic HEAD to a per-worktree ref (which lives in the worktree's own git dir).
func TestResolveHeadAtMatchesGit(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	gitDir := filepath.Join(dir, ".git")
	check := func(name, gd, wd string) {
		t.Helper()
		got, err := ResolveHeadAt(gd)
		if err != nil {
			t.Fatalf("%s: ResolveHeadAt: %v", name, err)
		}
		want := ZeroHash
		if out, err := refsGitErr(wd, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
			want = refsMustHash(t, out)
		}
		if got != want {
			t.Errorf("%s: ResolveHeadAt = %s, git says %s", name, got, want)
		}
	}
	check("unborn", gitDir, dir)
	refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	check("loose branch", gitDir, dir)
	refsGit(t, dir, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(gitDir, "refs", "heads", "main")); !os.IsNotExist(err) {
		t.Fatalf("main is still loose after pack-refs: %v", err)
	}
	check("packed branch", gitDir, dir)
	refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	refsGit(t, dir, "checkout", "-q", "--detach", "HEAD~1")
	check("detached", gitDir, dir)
	refsGit(t, dir, "checkout", "-q", "main")

	wt := filepath.Join(t.TempDir(), "wt")
	refsGit(t, dir, "worktree", "add", "-q", "-b", "side", wt, "HEAD~1")
	wtGitDir := filepath.Join(gitDir, "worktrees", "wt")
	check("linked worktree", wtGitDir, wt)
	refsGit(t, wt, "update-ref", "refs/worktree/mine", "main")
	refsGit(t, wt, "symbolic-ref", "HEAD", "refs/worktree/mine")
	check("per-worktree ref", wtGitDir, wt)
	refsGit(t, wt, "symbolic-ref", "HEAD", "refs/heads/unborn")
	check("unborn in worktree", wtGitDir, wt)
}

// TestIdentityCleanedLikeReflog: commit signatures and reflog lines come from one identity,
// cleaned as git cleans it, with committer.* over user.*.
func TestIdentityCleanedLikeReflog(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	refsGit(t, dir, "config", "committer.name", "Com <m>")
	refsGit(t, dir, "config", "committer.email", " <c@example.com> ")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ envName, envEmail, name, email string }{
		{"", "", "Com m", "c@example.com"},
		{"Eve <x@y>", "<eve@example.com>.", "Eve x@y", "eve@example.com"},
		{"...", "<>", "git-loop", "git-loop@localhost"},
	} {
		t.Setenv("GIT_COMMITTER_NAME", tc.envName)
		t.Setenv("GIT_COMMITTER_EMAIL", tc.envEmail)
		sig := r.Identity(time.Unix(1700000000, 0))
		if sig.Name != tc.name || sig.Email != tc.email {
			t.Errorf("env %q %q: Identity = %q <%q>, want %q <%q>", tc.envName, tc.envEmail, sig.Name, sig.Email, tc.name, tc.email)
		}
		name, email := r.committer()
		if name != sig.Name || email != sig.Email {
			t.Errorf("env %q %q: reflog identity %q <%q> differs from commit identity", tc.envName, tc.envEmail, name, email)
		}
	}
}

// TestOpenResolvesSymlinks: a worktree reached through a symlink opens with canonical
// paths, as `git rev-parse --show-toplevel` prints them, also for a linked worktree.
func TestOpenResolvesSymlinks(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	links := t.TempDir()
	wt := filepath.Join(links, "wt")
	refsGit(t, dir, "worktree", "add", "-q", wt)
	realWT, _ := filepath.EvalSymlinks(wt)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ link, target, wantTop string }{
		{"main", dir, real},
		{"linked", wt, realWT},
	} {
		link := filepath.Join(links, tc.link)
		if err := os.Symlink(tc.target, link); err != nil {
			t.Skip("symlinks not available:", err)
		}
		for _, at := range []string{link, filepath.Join(link, "sub")} {
			if tc.link == "linked" && at != link {
				continue
			}
			r, err := Open(at)
			if err != nil {
				t.Fatal(err)
			}
			top := refsGit(t, at, "rev-parse", "--show-toplevel")
			if r.WorkTree != tc.wantTop || r.WorkTree != top {
				t.Errorf("Open(%s).WorkTree = %s, want %s (git: %s)", at, r.WorkTree, tc.wantTop, top)
			}
			for _, d := range []string{r.GitDir, r.CommonDir} {
				if canon, _ := filepath.EvalSymlinks(d); canon != d {
					t.Errorf("Open(%s): git dir %s is not canonical (%s)", at, d, canon)
				}
			}
		}
	}
}

// TestUserConfigThatDoesNotParseIsSkipped: the old [section.sub] form reads as git reads it;
// a global file with a bad line is left out, a repository config with one is an error.
func TestUserConfigThatDoesNotParseIsSkipped(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	data, _ := os.ReadFile(global)
	if err := os.WriteFile(global, append(data, "[section.Sub]\n\tkey = v\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := refsGit(t, dir, "config", "--global", "section.sub.key"); got != "v" {
		t.Fatalf("git reads section.sub.key as %q", got)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("Open with an old-syntax global config: %v", err)
	}
	if got := r.Config.Get("section", "sub", "key"); got != "v" {
		t.Errorf("section.sub.key = %q, want v as git reads it", got)
	}
	if err := os.WriteFile(global, append(data, "[core]\n\tkey = \"unterminated\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err != nil {
		t.Errorf("Open with a bad global config: %v", err)
	}
	repoCfg := filepath.Join(dir, ".git", "config")
	data, _ = os.ReadFile(repoCfg)
	if err := os.WriteFile(repoCfg, append(data, "[core]\n\tkey = \"unterminated\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil {
		t.Errorf("Open with an unparsable repository config succeeded")
	}
}
