package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// globalWithInclude writes the global config: an identity, then extra, and the file "inc" under HOME
// that sets user.name = Included. It returns inc's path.
func globalWithInclude(t *testing.T, extra string) string {
	t.Helper()
	inc := filepath.Join(os.Getenv("HOME"), "inc.gitconfig")
	if err := os.WriteFile(inc, []byte("[user]\n\tname = Included\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra = strings.ReplaceAll(extra, "INC", inc)
	cfg := "[user]\n\tname = Loop Tester\n\temail = loop@example.com\n[init]\n\tdefaultBranch = main\n" + extra
	if err := os.WriteFile(os.Getenv("GIT_CONFIG_GLOBAL"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return inc
}

// gitIn runs `git args` in dir as a shell that cd'd there would (PWD=dir), with env added.
func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PWD="+dir), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %q in %s: %v", args, dir, err)
	}
	return strings.TrimRight(string(out), "\n")
}

func mustOpen(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// userNameLikeGit checks that open(dir), with env set, reads the user.name git reads in dir
// with env added.
func userNameLikeGit(t *testing.T, dir string, env []string, open func(string) (*Repo, error)) {
	t.Helper()
	want := gitIn(t, dir, env, "config", "user.name")
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	r, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Config.Get("user", "", "name"); got != want {
		t.Errorf("user.name %q, git says %q", got, want)
	}
}

// git tries the git dir's realpath, then the path as given (absolute, via $PWD).
func TestConfigLikeGitIncludeIfGitDirThroughSymlink(t *testing.T) {
	refsHermetic(t)
	base := t.TempDir()
	real := filepath.Join(base, "real")
	refsGit(t, base, "init", "-q", filepath.Join(real, "w"))
	os.Symlink(real, filepath.Join(base, "link"))
	lw := filepath.Join(base, "link", "w")
	globalWithInclude(t, "[includeIf \"gitdir:"+lw+"/\"]\n\tpath = INC\n")

	t.Run("Open(symlinked worktree top)", func(t *testing.T) {
		userNameLikeGit(t, lw, nil, Open)
	})
	t.Run("OpenFromEnv(GIT_DIR=symlinked path)", func(t *testing.T) {
		userNameLikeGit(t, base, []string{"GIT_DIR=" + lw + "/.git", "GIT_WORK_TREE=" + lw}, OpenFromEnv)
	})
}

// git expands "~/" in a gitdir pattern to the realpath of $HOME (interpolate_path(…, 1)).
func TestConfigLikeGitIncludeIfHomeNotCanonical(t *testing.T) {
	refsHermetic(t)
	base := t.TempDir()
	realHome := filepath.Join(base, "realhome")
	proj := filepath.Join(realHome, "proj")
	refsGit(t, base, "init", "-q", proj)
	os.Symlink(realHome, filepath.Join(base, "homelink"))
	for _, home := range []string{filepath.Join(base, "homelink"), realHome + "/"} {
		t.Run("HOME="+home, func(t *testing.T) {
			t.Setenv("HOME", home)
			globalWithInclude(t, "[includeIf \"gitdir:~/proj/\"]\n\tpath = INC\n")
			userNameLikeGit(t, proj, nil, Open)
		})
	}
}

// gitdir/i:./ compares the including file's directory with strncasecmp: ASCII only.
func TestConfigLikeGitIncludeIfDotSlashFoldNonASCII(t *testing.T) {
	refsHermetic(t)
	base := t.TempDir()
	os.MkdirAll(filepath.Join(base, "Ä"), 0o755)
	proj := filepath.Join(base, "ä", "p")
	refsGit(t, base, "init", "-q", proj)
	inc := globalWithInclude(t, "[include]\n\tpath = "+filepath.Join(base, "Ä", "cfg")+"\n")
	os.WriteFile(filepath.Join(base, "Ä", "cfg"), []byte("[includeIf \"gitdir/i:./\"]\n\tpath = "+inc+"\n"), 0o644)
	userNameLikeGit(t, proj, nil, Open)
}

// onbranch: git resolves HEAD fully (resolve_ref_unsafe): a branch that is a symbolic ref
// (refs/heads/master -> refs/heads/main) is the branch it names.
func TestConfigLikeGitOnBranchSymrefChain(t *testing.T) {
	refsHermetic(t)
	work := filepath.Join(t.TempDir(), "w")
	refsGit(t, filepath.Dir(work), "init", "-q", work)
	refsGit(t, work, "commit", "-q", "--allow-empty", "-m", "x")
	refsGit(t, work, "symbolic-ref", "refs/heads/master", "refs/heads/main")
	refsGit(t, work, "symbolic-ref", "HEAD", "refs/heads/master")
	for _, cond := range []string{"onbranch:main", "onbranch:master"} {
		t.Run(cond, func(t *testing.T) {
			globalWithInclude(t, "[includeIf \""+cond+"\"]\n\tpath = INC\n")
			userNameLikeGit(t, work, nil, Open)
		})
	}
}

// git reads GIT_CONFIG_COUNT's entries before GIT_CONFIG_PARAMETERS (config.c
// git_config_from_parameters), so `git -c` wins over an inherited GIT_CONFIG_COUNT.
func TestConfigLikeGitEnvCountBeforeParameters(t *testing.T) {
	refsHermetic(t)
	work := filepath.Join(t.TempDir(), "w")
	refsGit(t, filepath.Dir(work), "init", "-q", work)
	globalWithInclude(t, "[m]\n\tv = file\n")
	env := []string{"GIT_CONFIG_PARAMETERS='user.name'='From -c' 'm.v'='p'",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=From COUNT"}
	wantAll := gitIn(t, work, append(env, "GIT_CONFIG_KEY_0=m.v", "GIT_CONFIG_VALUE_0=c"), "config", "--get-all", "m.v")
	userNameLikeGit(t, work, env, Open)
	t.Setenv("GIT_CONFIG_KEY_0", "m.v")
	t.Setenv("GIT_CONFIG_VALUE_0", "c")
	if got := mustOpen(t, work).Config.All("m", "", "v"); !slices.Equal(got, strings.Split(wantAll, "\n")) {
		t.Errorf("m.v %q, git says %q", got, strings.Split(wantAll, "\n"))
	}
}

// A relative include.path is appended to the including file's path as written and opened
// by the OS (".." after a symlink goes up from the target), not cleaned as text.
func TestConfigLikeGitRelativeIncludeThroughSymlink(t *testing.T) {
	refsHermetic(t)
	base := t.TempDir()
	work := filepath.Join(base, "w")
	refsGit(t, base, "init", "-q", work)
	os.MkdirAll(filepath.Join(base, "cfgreal", "deep"), 0o755)
	os.Symlink(filepath.Join(base, "cfgreal", "deep"), filepath.Join(base, "cfglink"))
	os.WriteFile(filepath.Join(base, "cfgreal", "inc"), []byte("[user]\n\tname = Physical\n"), 0o644)
	os.WriteFile(filepath.Join(base, "inc"), []byte("[user]\n\tname = Lexical\n"), 0o644)
	os.WriteFile(filepath.Join(base, "cfgreal", "deep", "c"), []byte("[include]\n\tpath = ../inc\n"), 0o644)
	globalWithInclude(t, "[include]\n\tpath = "+base+"/cfglink/c\n")
	userNameLikeGit(t, work, nil, Open)
}

// git follows include.path and includeIf.<cond>.path given with -c or GIT_CONFIG_COUNT
// (absolute paths), where they stand.
func TestConfigLikeGitEnvIncludePath(t *testing.T) {
	refsHermetic(t)
	work := filepath.Join(t.TempDir(), "w")
	refsGit(t, filepath.Dir(work), "init", "-q", work)
	inc := globalWithInclude(t, "")
	for _, key := range []string{"include.path", "includeIf.onbranch:main.path"} {
		t.Run(key, func(t *testing.T) {
			userNameLikeGit(t, work, []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=" + key, "GIT_CONFIG_VALUE_0=" + inc}, Open)
		})
	}
}
