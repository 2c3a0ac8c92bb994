package share

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

func TestSecretName(t *testing.T) {
	for _, tc := range []struct {
		base   string
		secret bool
	}{
		{".env", true}, {".env.local", true}, {".envrc", true}, {"server.pem", true}, {"id_rsa", true},
		{"id_rsa.bak", true}, {"id_ed25519", true}, {"id_ecdsa_sk", true},
		{".env.example", false}, {".env.sample", false}, {".env.production", true},
		{"id_rsa.pub", false}, {"id_ed25519.pub", false}, {"env", false}, {"my.env", false}, {"pem.go", false},
		{"README.md", false}, {"rsa_id", false},
	} {
		if got := secretName(tc.base) != ""; got != tc.secret {
			t.Errorf("secretName(%q) = %q, want secret=%v", tc.base, secretName(tc.base), tc.secret)
		}
	}
}

func TestSecretContent(t *testing.T) {
	pad := strings.Repeat("x", secretScanBytes)
	for _, tc := range []struct {
		name, data string
		secret     bool
	}{
		{"rsa", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", true},
		{"openssh after text", "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n", true},
		{"pkcs8", "-----BEGIN PRIVATE KEY-----", true},
		{"encrypted", "-----BEGIN ENCRYPTED PRIVATE KEY-----", true},
		{"pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----", true},
		{"public", "-----BEGIN PUBLIC KEY-----", false},
		{"certificate", "-----BEGIN CERTIFICATE-----", false},
		{"lowercase", "-----begin rsa private key-----", false},
		{"past the bound", pad + "-----BEGIN RSA PRIVATE KEY-----", false},
	} {
		if got := secretContent([]byte(tc.data)) != ""; got != tc.secret {
			t.Errorf("%s: secret = %v, want %v", tc.name, got, tc.secret)
		}
	}
}

func FuzzSecretContent(f *testing.F) {
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----"), 3)
	f.Add([]byte("x"), 0)
	f.Fuzz(func(t *testing.T, data []byte, at int) {
		if secretContent(data) != "" && !strings.Contains(string(data), "PRIVATE KEY") {
			t.Fatalf("%q reported without a private key header", data)
		}
		if at < 0 || at > len(data) {
			return
		}
		with := append(append(append([]byte{}, data[:at]...), "\n-----BEGIN EC PRIVATE KEY-----\n"...), data[at:]...)
		if len(with) <= secretScanBytes && secretContent(with) == "" {
			t.Fatalf("a header inserted at %d is missed in %q", at, with)
		}
	})
}

func FuzzCheckReadName(f *testing.F) {
	for _, s := range []string{"fix", "origin/fix", "a/b/c", "/x", "x/", "origin/-x", "o..r/x", "HEAD", "up stream/x", "o/x.lock"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if loop.CheckReadName(name) != nil {
			return
		}
		ref := loop.RefName(name)
		if err := gitstore.CheckRefName(ref); err != nil {
			t.Fatalf("%q is accepted but its ref %q is not valid: %v", name, ref, err)
		}
		if loop.CheckName(loop.LocalName(name)) != nil {
			t.Fatalf("%q is accepted but its loop name %q is not", name, loop.LocalName(name))
		}
		if fetched := strings.HasPrefix(ref, "refs/loop-remotes/"); fetched != loop.IsFetched(name) || (!fetched && !strings.HasPrefix(ref, "refs/loop/")) {
			t.Fatalf("%q maps to %q", name, ref)
		}
	})
}

// provRepo is a repository for newCommits: git runs in it, commits carry real times.
func provRepo(t *testing.T) (*gitstore.Repo, func(args ...string) string) {
	dir := looptest.NewRepo(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, git
}

// TestNewCommitsMatchesGit: the commits newCommits finds between two HEADs are what
// `git rev-list HEAD ^PREV` lists, for a straight line, a merge of a branch that forked
// before PREV, a merge bringing old history in, and a move to another line of history.
func TestNewCommitsMatchesGit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(git func(...string) string) (prev string)
	}{
		{"straight line", func(git func(...string) string) string {
			prev := git("rev-parse", "HEAD")
			git("commit", "-q", "--allow-empty", "-m", "a")
			git("commit", "-q", "--allow-empty", "-m", "b")
			return prev
		}},
		{"merge of a side branch", func(git func(...string) string) string {
			git("branch", "side")
			git("commit", "-q", "--allow-empty", "-m", "main 1")
			prev := git("rev-parse", "HEAD")
			git("checkout", "-q", "side")
			git("commit", "-q", "--allow-empty", "-m", "side 1")
			git("checkout", "-q", "main")
			git("commit", "-q", "--allow-empty", "-m", "main 2")
			git("merge", "-q", "--no-edit", "side")
			return prev
		}},
		{"another line", func(git func(...string) string) string {
			git("checkout", "-q", "-b", "other")
			git("commit", "-q", "--allow-empty", "-m", "other 1")
			git("checkout", "-q", "main")
			git("commit", "-q", "--allow-empty", "-m", "main 1")
			prev := git("rev-parse", "HEAD")
			git("checkout", "-q", "other")
			git("commit", "-q", "--allow-empty", "-m", "other 2")
			return prev
		}},
		{"nothing new", func(git func(...string) string) string { return git("rev-parse", "HEAD") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, git := provRepo(t)
			for i := 0; i < 3; i++ {
				git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("old %d", i))
			}
			prev := tc.build(git)
			head := git("rev-parse", "HEAD")
			want := strings.Fields(git("rev-list", head, "^"+prev))
			got, err := loop.NewCommits(r, mustHash(t, head), mustHash(t, prev), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if g := hexes(got); strings.Join(g, " ") != strings.Join(sorted(want), " ") {
				t.Errorf("new commits = %v, want %v (git rev-list)", g, sorted(want))
			}
		})
	}
}

// TestNewCommitsSince: commits older than the loop are never annotated, even when HEAD
// moves to a line that holds them.
func TestNewCommitsSince(t *testing.T) {
	r, git := provRepo(t)
	t.Setenv("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z")
	git("commit", "-q", "--allow-empty", "-m", "base")
	git("commit", "-q", "--allow-empty", "-m", "old, on main")
	prev := git("rev-parse", "HEAD")
	git("checkout", "-q", "-b", "old", "HEAD~1")
	git("commit", "-q", "--allow-empty", "-m", "old, on a branch")
	os.Unsetenv("GIT_COMMITTER_DATE")
	git("commit", "-q", "--allow-empty", "-m", "new")
	got, err := loop.NewCommits(r, mustHash(t, git("rev-parse", "HEAD")), mustHash(t, prev), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if g := hexes(got); len(g) != 1 || g[0] != git("rev-parse", "HEAD") {
		t.Errorf("new commits = %v, want only the one made after the start", g)
	}
}

// BenchmarkScanSecrets: searching every snapshot of a 100-iteration loop over a 2,000-file
// worktree, each iteration changing one file.
func BenchmarkScanSecrets(b *testing.B) {
	dir := looptest.NewRepo(b)
	for i := 0; i < 2000; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%04d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o777)
		os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line %d\n", i), 200)), 0o666)
	}
	s, err := loop.OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Start(loop.StartOptions{Name: "g", Flags: loop.Settings{Prompt: "p", Promises: []string{"DONE"}, MaxIterations: intPtr(1000)}}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(dir, "d00", "f0000.go"), []byte(fmt.Sprintf("changed %d\n", i)), 0o666)
		if _, _, err := s.Checkpoint("g"); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		found, err := scanSecrets(s, []string{"g"}, "")
		if err != nil || len(found) != 0 {
			b.Fatal(err, found)
		}
	}
}

func intPtr(n int) *int { return &n }

func mustHash(t *testing.T, s string) gitstore.Hash {
	t.Helper()
	h, err := gitstore.ParseHash(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func hexes(hs []gitstore.Hash) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.String())
	}
	return sorted(out)
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// TestRejectedSaysWhatWorks: a rejected loop is explained as a divergence with the push that
// works (under another name), not a fetch that leads to the same rejection; rejected notes
// are fetched (merged) first.
func TestRejectedSaysWhatWorks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refs   []gitstore.PushResult
		locals map[string]string
		want   []string
	}{
		{"none rejected", []gitstore.PushResult{{Flag: '*', To: "refs/loop/fix"}}, nil, nil},
		{"loop", []gitstore.PushResult{{Flag: '!', To: "refs/loop/fix", Summary: "[rejected]", Reason: "fetch first"}}, map[string]string{"fix": "fix"},
			[]string{"refs/loop/fix [rejected] (fetch first)", "the two diverged", "`git loop push origin fix:fix-2`", "`git loop log origin/fix`"}},
		{"loop pushed under another name", []gitstore.PushResult{{Flag: '!', To: "refs/loop/theirs", Summary: "[rejected]", Reason: "non-fast-forward"}}, map[string]string{"theirs": "mine"},
			[]string{"the remote's loop theirs", "`git loop push origin mine:mine-2`", "`git loop log origin/theirs`"}},
		{"notes", []gitstore.PushResult{{Flag: '!', To: loop.NotesRef, Summary: "[rejected]", Reason: "fetch first"}}, nil,
			[]string{"refs/notes/loop [rejected]", "run `git loop fetch origin` (it merges them) and push again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rejected("origin", tc.refs, tc.locals)
			if (err == nil) != (tc.want == nil) {
				t.Fatalf("rejected = %v, want an error: %v", err, tc.want != nil)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

func TestSplitPushName(t *testing.T) {
	for _, tc := range []struct{ in, local, theirs string }{
		{"fix", "fix", "fix"}, {"fix:fix-2", "fix", "fix-2"}, {"a:b:c", "a", "b:c"},
	} {
		if l, th := splitPushName(tc.in); l != tc.local || th != tc.theirs {
			t.Errorf("splitPushName(%q) = %q, %q; want %q, %q", tc.in, l, th, tc.local, tc.theirs)
		}
	}
}
