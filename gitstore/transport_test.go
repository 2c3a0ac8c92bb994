package gitstore

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParsePushPorcelain(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  string
		want []PushResult
	}{
		{"empty", "", nil},
		{"new and up to date",
			"To /tmp/r.git\n*\trefs/loop/a:refs/loop/a\t[new reference]\n=\trefs/notes/loop:refs/notes/loop\t[up to date]\nDone\n",
			[]PushResult{{'*', "refs/loop/a", "refs/loop/a", "[new reference]", ""}, {'=', "refs/notes/loop", "refs/notes/loop", "[up to date]", ""}}},
		{"rejected with reason",
			"To git://h/r\n!\trefs/loop/a:refs/loop/a\t[rejected] (non-fast-forward)\nDone\n",
			[]PushResult{{'!', "refs/loop/a", "refs/loop/a", "[rejected]", "non-fast-forward"}}},
		{"fast-forward, CRLF",
			" \trefs/loop/a:refs/loop/a\t1234567..89abcde\r\n",
			[]PushResult{{' ', "refs/loop/a", "refs/loop/a", "1234567..89abcde", ""}}},
		{"remote rejected", "!\trefs/loop/a:refs/loop/a\t[remote rejected] (pre-receive hook declined)",
			[]PushResult{{'!', "refs/loop/a", "refs/loop/a", "[remote rejected]", "pre-receive hook declined"}}},
		{"not ref lines", "To x\n?\ta:b\tc\n!\tnocolon\tx\n!\ta:b\nDone", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParsePushPorcelain(tc.out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestParsePushPorcelainOfGit parses what git itself prints for a new ref, an unchanged one
// and a rejected non-fast-forward, pushing to a bare repository with RunGit.
func TestParsePushPorcelainOfGit(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	bare := filepath.Join(t.TempDir(), "r.git")
	refsGit(t, dir, "init", "-q", "--bare", bare)
	refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	refsGit(t, dir, "update-ref", "refs/loop/a", "HEAD")
	refsGit(t, dir, "update-ref", "refs/loop/b", "HEAD")
	ctx := context.Background()
	out, err := r.RunGit(ctx, "push", "--porcelain", bare, "refs/loop/a:refs/loop/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := ParsePushPorcelain(out.Stdout); len(got) != 1 || got[0].Flag != '*' || got[0].To != "refs/loop/a" {
		t.Fatalf("new ref: %+v from %q", got, out.Stdout)
	}
	refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	refsGit(t, dir, "push", "-q", bare, "+HEAD:refs/loop/b")
	refsGit(t, dir, "update-ref", "refs/loop/b", "HEAD~1")
	out, err = r.RunGit(ctx, "push", "--porcelain", bare, "refs/loop/a:refs/loop/a", "refs/loop/b:refs/loop/b")
	if err == nil {
		t.Fatalf("a non-fast-forward push succeeded: %q", out.Stdout)
	}
	got := ParsePushPorcelain(out.Stdout)
	if len(got) != 2 || got[0].Flag != '=' || !got[1].Rejected() || !strings.Contains(got[1].Reason, "fast-forward") {
		t.Fatalf("up to date and rejected: %+v from %q", got, out.Stdout)
	}
}

func FuzzParsePushPorcelain(f *testing.F) {
	f.Add("To x\n*\trefs/loop/a:refs/loop/a\t[new reference]\nDone\n")
	f.Add("!\ta:b\t[rejected] (non-fast-forward)")
	f.Add("!\ta:b\t ()")
	f.Fuzz(func(t *testing.T, out string) {
		for _, p := range ParsePushPorcelain(out) {
			if !strings.ContainsRune(" +-*!=", rune(p.Flag)) {
				t.Fatalf("flag %q", p.Flag)
			}
			if strings.ContainsAny(p.From+p.To+p.Summary+p.Reason, "\n") || strings.Contains(p.From, ":") {
				t.Fatalf("a field spans lines or refs: %+v", p)
			}
			if !strings.Contains(out, p.From+":"+p.To+"\t"+p.Summary) {
				t.Fatalf("%+v is not in the output", p)
			}
		}
	})
}

func TestGitComplaint(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"", "exit status 1"},
		{"fatal: unable to connect to h:\nh[0: 1.2.3.4]: errno=Connection refused\n", "fatal: unable to connect to h: h[0: 1.2.3.4]: errno=Connection refused"},
		{"To x\n ! [rejected] a -> a (fetch first)\nerror: failed to push some refs to 'x'\nhint: Updates were rejected\nhint: pull first\n", "! [rejected] a -> a (fetch first) error: failed to push some refs to 'x'"},
		{"fatal: 'nowhere' does not appear to be a git repository\n", "fatal: 'nowhere' does not appear to be a git repository"},
	} {
		if got := gitComplaint(tc.stderr, "exit status 1"); got != tc.want {
			t.Errorf("gitComplaint(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// TestRunGitIgnoresCallersRepoEnv: git run by RunGit acts on the repository it was opened
// for even when the caller's environment points git elsewhere, as a git hook's or
// `git --git-dir=… loop`'s does.
func TestRunGitIgnoresCallersRepoEnv(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	_, other := refsNewRepo(t)
	refsGit(t, dir, "commit", "-q", "--allow-empty", "-m", "mine")
	refsGit(t, other, "commit", "-q", "--allow-empty", "-m", "other's")
	for _, tc := range []struct {
		name string
		env  map[string]string
	}{
		{"GIT_DIR", map[string]string{"GIT_DIR": filepath.Join(other, ".git")}},
		{"GIT_DIR and GIT_WORK_TREE", map[string]string{"GIT_DIR": filepath.Join(other, ".git"), "GIT_WORK_TREE": other}},
		{"GIT_COMMON_DIR", map[string]string{"GIT_COMMON_DIR": filepath.Join(other, ".git")}},
		{"GIT_OBJECT_DIRECTORY", map[string]string{"GIT_OBJECT_DIRECTORY": filepath.Join(other, ".git", "objects")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			out, err := r.RunGit(context.Background(), "log", "-1", "--format=%s")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.Stdout); got != "mine" {
				t.Errorf("git read %q: it acted on another repository", got)
			}
		})
	}
}
