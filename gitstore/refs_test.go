package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRefsUpdateReadBack(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	const name = "refs/loop/x"

	if _, err := r.ReadRef(name); !errors.Is(err, ErrRefNotFound) {
		t.Fatalf("ReadRef of a missing ref: %v, want ErrRefNotFound", err)
	}
	var hashes []Hash
	prev := ZeroHash
	for i := 0; i < 5; i++ {
		h := refsCommit(t, r, prev, fmt.Sprintf("snapshot %d", i))
		if err := r.UpdateRef(name, h, prev, fmt.Sprintf("loop: snapshot %d", i)); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		got, err := r.ReadRef(name)
		if err != nil || got != h {
			t.Fatalf("ReadRef after update %d = %v, %v; want %v", i, got, err, h)
		}
		if out := refsGit(t, dir, "rev-parse", name); out != h.String() {
			t.Fatalf("git rev-parse %s = %s, want %s", name, out, h)
		}
		hashes = append(hashes, h)
		prev = h
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, name+".lock")); !os.IsNotExist(err) {
		t.Fatalf("lock file left behind: %v", err)
	}

	// Every update is in the reflog, newest first, with its message.
	out := refsGit(t, dir, "reflog", "show", "--format=%H %gs", name)
	lines := strings.Split(out, "\n")
	if len(lines) != len(hashes) {
		t.Fatalf("git reflog has %d entries, want %d:\n%s", len(lines), len(hashes), out)
	}
	for i, line := range lines {
		j := len(hashes) - 1 - i
		want := fmt.Sprintf("%s loop: snapshot %d", hashes[j], j)
		if line != want {
			t.Errorf("reflog line %d = %q, want %q", i, line, want)
		}
	}

	// Wrong old values are refused and change nothing.
	other := refsCommit(t, r, ZeroHash, "other")
	err := r.UpdateRef(name, other, hashes[0], "stale")
	if !errors.Is(err, ErrRefChanged) || !strings.Contains(err.Error(), hashes[0].String()) || !strings.Contains(err.Error(), prev.String()) {
		t.Fatalf("update with stale old value: %v, want ErrRefChanged naming both values", err)
	}
	if err := r.UpdateRef(name, other, ZeroHash, "create"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("create over an existing ref: %v, want ErrRefChanged", err)
	}
	if err := r.UpdateRef("refs/loop/new", other, prev, "x"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("update of a missing ref: %v, want ErrRefChanged", err)
	}
	if got, _ := r.ReadRef(name); got != prev {
		t.Fatalf("ref moved by a refused update: %v", got)
	}
	// Setting the current value again is a no-op, as in git: no reflog line.
	if err := r.UpdateRef(name, prev, prev, "noop"); err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(refsGit(t, dir, "reflog", "show", name), "\n")); n != len(hashes) {
		t.Fatalf("no-op update added a reflog line (%d lines)", n)
	}
	// A missing object is refused.
	missing := HashObject(BlobObject, []byte("never written"))
	if err := r.UpdateRef("refs/loop/missing", missing, ZeroHash, "x"); err == nil || !strings.Contains(err.Error(), "nonexistent object") {
		t.Fatalf("update to a missing object: %v", err)
	}
	// Deletion.
	if err := r.UpdateRef(name, ZeroHash, prev, "delete"); err != nil {
		t.Fatal(err)
	}
	if _, err := refsGitErr(dir, "rev-parse", "--verify", "-q", name); err == nil {
		t.Fatal("git still sees the deleted ref")
	}
	if _, err := os.Stat(r.reflogPath(name)); !os.IsNotExist(err) {
		t.Fatalf("reflog of the deleted ref survives: %v", err)
	}
	refsGit(t, dir, "fsck", "--full", "--no-dangling")
}

// Our reflog lines must be byte-identical to git's own for the same update.
func TestRefsReflogFormatMatchesGit(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	h1 := refsCommit(t, r, ZeroHash, "one")
	h2 := refsCommit(t, r, h1, "two")
	msg := "  loop:  snapshot\tof\n many   files  "
	for _, tc := range []struct{ name, date, cname, cemail string }{
		{"default", "1700000000 +0130", "", ""},
		{"env ident", "@1700000123 -0800", " Env <Person>. ", "env@example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GIT_COMMITTER_DATE", tc.date)
			if tc.cname != "" {
				t.Setenv("GIT_COMMITTER_NAME", tc.cname)
				t.Setenv("GIT_COMMITTER_EMAIL", tc.cemail)
			}
			suffix := strings.ReplaceAll(tc.name, " ", "-")
			ours, theirs := "refs/loop/ours-"+suffix, "refs/loop/git-"+suffix
			refsGit(t, dir, "update-ref", "--create-reflog", "-m", msg, theirs, h1.String(), "")
			refsGit(t, dir, "update-ref", "--create-reflog", "-m", msg, theirs, h2.String(), h1.String())
			if err := r.UpdateRef(ours, h1, ZeroHash, msg); err != nil {
				t.Fatal(err)
			}
			if err := r.UpdateRef(ours, h2, h1, msg); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(r.reflogPath(theirs))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(r.reflogPath(ours))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("reflog differs from git's:\n got %q\nwant %q", got, want)
			}
		})
	}
	// Without the date override the time is now, in the local zone; an empty message has no tab.
	before := time.Now().Unix()
	if err := r.UpdateRef("refs/loop/now", h1, ZeroHash, ""); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(r.reflogPath("refs/loop/now"))
	line := strings.TrimSuffix(string(data), "\n")
	prefix := ZeroHash.String() + " " + h1.String() + " Loop Tester <loop@example.com> "
	if !strings.HasPrefix(line, prefix) || strings.Contains(line, "\t") {
		t.Fatalf("reflog line %q", line)
	}
	f := strings.Fields(strings.TrimPrefix(line, prefix))
	if len(f) != 2 {
		t.Fatalf("reflog time %q", f)
	}
	secs, _ := strconv.ParseInt(f[0], 10, 64)
	if secs < before || secs > time.Now().Unix() || len(f[1]) != 5 {
		t.Fatalf("reflog time %q", f)
	}
	refsGit(t, dir, "fsck", "--full", "--no-dangling")
}

func TestRefsPacked(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	a := refsCommit(t, r, ZeroHash, "a")
	b := refsCommit(t, r, a, "b")
	c := refsCommit(t, r, b, "c")
	for _, ref := range []string{"refs/loop/p1", "refs/loop/p2", "refs/heads/main", "refs/loop/deep/p3"} {
		refsGit(t, dir, "update-ref", ref, a.String())
	}
	refsGit(t, dir, "tag", "-a", "-m", "annotated", "v1", b.String())
	tag := refsMustHash(t, refsGit(t, dir, "rev-parse", "refs/tags/v1"))
	refsGit(t, dir, "pack-refs", "--all")
	packed, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil || !bytes.HasPrefix(packed, []byte("# pack-refs with:")) || !bytes.Contains(packed, []byte("\n^")) {
		t.Fatalf("expected a packed-refs file with a header and a peeled line: %v\n%s", err, packed)
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "refs/loop/p1")); !os.IsNotExist(err) {
		t.Fatal("pack-refs left the loose ref")
	}

	for name, want := range map[string]Hash{"refs/loop/p1": a, "refs/loop/deep/p3": a, "refs/tags/v1": tag, "refs/heads/main": a, "HEAD": a} {
		if got, err := r.ReadRef(name); err != nil || got != want {
			t.Errorf("ReadRef(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if h, err := r.Head(); err != nil || h != a {
		t.Errorf("Head() = %v, %v", h, err)
	}
	if _, err := r.ReadRef("refs/loop/p"); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("ReadRef of a name prefix: %v", err)
	}

	// The old value is checked against packed-refs.
	if err := r.UpdateRef("refs/loop/p1", c, b, "stale"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("stale update of a packed ref: %v", err)
	}
	if err := r.UpdateRef("refs/loop/p1", b, ZeroHash, "create"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("create over a packed ref: %v", err)
	}
	if err := r.UpdateRef("refs/loop/p1", b, a, "from packed"); err != nil {
		t.Fatal(err)
	}
	if out := refsGit(t, dir, "rev-parse", "refs/loop/p1"); out != b.String() {
		t.Fatalf("git sees %s, want %s", out, b)
	}
	if out := refsGit(t, dir, "reflog", "show", "--format=%H", "refs/loop/p1"); out != b.String() {
		t.Fatalf("reflog: %q", out)
	}
	// Now the loose ref shadows the packed one; the old value is the loose one.
	if err := r.UpdateRef("refs/loop/p1", c, a, "stale"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("update against the shadowed packed value: %v", err)
	}

	// ListRefs merges loose and packed, loose winning, sorted.
	refs, err := r.ListRefs("refs/loop/")
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{"refs/loop/deep/p3", a}, {"refs/loop/p1", b}, {"refs/loop/p2", a}}
	if fmt.Sprint(refs) != fmt.Sprint(want) {
		t.Fatalf("ListRefs = %v\nwant %v", refs, want)
	}
	refsCheckListAgainstGit(t, r, dir, "refs/")
	refsCheckListAgainstGit(t, r, dir, "")
	refsCheckListAgainstGit(t, r, dir, "refs/loop/p")

	// Deleting a packed-only ref rewrites packed-refs without it (and its peeled line).
	if err := r.UpdateRef("refs/tags/v1", ZeroHash, tag, "delete"); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef("refs/loop/p2", ZeroHash, a, "delete"); err != nil {
		t.Fatal(err)
	}
	packed2, _ := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if bytes.Contains(packed2, []byte("v1")) || bytes.Contains(packed2, []byte("p2")) || bytes.Contains(packed2, []byte("\n^")) ||
		!bytes.HasPrefix(packed2, []byte("# pack-refs with:")) {
		t.Fatalf("packed-refs after deletes:\n%s", packed2)
	}
	if out := refsGit(t, dir, "for-each-ref", "--format=%(refname)"); out != "refs/heads/main\nrefs/loop/deep/p3\nrefs/loop/p1" {
		t.Fatalf("git for-each-ref after deletes:\n%s", out)
	}
	// Deleting a ref that is both loose and packed removes both.
	refsGit(t, dir, "pack-refs", "--all")
	refsGit(t, dir, "update-ref", "refs/loop/deep/p3", c.String())
	if err := r.UpdateRef("refs/loop/deep/p3", ZeroHash, c, "delete"); err != nil {
		t.Fatal(err)
	}
	if _, err := refsGitErr(dir, "rev-parse", "--verify", "-q", "refs/loop/deep/p3"); err == nil {
		t.Fatal("deleted ref still resolves")
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "refs/loop/deep")); !os.IsNotExist(err) {
		t.Fatalf("empty directory left behind: %v", err)
	}

	// Name conflicts with packed and loose refs, as git reports them.
	refsGit(t, dir, "update-ref", "refs/loop/dir/child", a.String())
	refsGit(t, dir, "pack-refs", "--all")
	refsGit(t, dir, "update-ref", "refs/loop/loose/child", a.String())
	for _, name := range []string{"refs/loop/dir", "refs/loop/loose", "refs/loop/p1/sub", "refs/heads/main/x"} {
		err := r.UpdateRef(name, a, ZeroHash, "conflict")
		if err == nil || !strings.Contains(err.Error(), "exists; cannot create") {
			t.Errorf("UpdateRef(%s) = %v, want a name conflict", name, err)
		}
		if _, gerr := refsGitErr(dir, "update-ref", name, a.String(), ""); gerr == nil {
			t.Errorf("git allowed %s too", name)
		}
	}
	// An empty directory left where a ref goes is removed.
	os.MkdirAll(filepath.Join(r.CommonDir, "refs/loop/emptydir/a/b"), 0o777)
	if err := r.UpdateRef("refs/loop/emptydir", a, ZeroHash, "x"); err != nil {
		t.Fatal(err)
	}
	refsGit(t, dir, "fsck", "--full", "--no-dangling")
}

// refsCheckListAgainstGit compares ListRefs(prefix) with git for-each-ref.
func refsCheckListAgainstGit(t *testing.T, r *Repo, dir, prefix string) {
	t.Helper()
	refs, err := r.ListRefs(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ref := range refs {
		got = append(got, ref.Hash.String()+" "+ref.Name)
	}
	var want []string
	for _, line := range strings.Split(refsGit(t, dir, "for-each-ref", "--format=%(objectname) %(refname)"), "\n") {
		if len(line) > 41 && strings.HasPrefix(line[41:], prefix) {
			want = append(want, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ListRefs(%q):\n%s\ngit for-each-ref:\n%s", prefix, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRefsListRefs(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	a := refsCommit(t, r, ZeroHash, "a")
	b := refsCommit(t, r, a, "b")
	for _, n := range []string{"refs/loop/a", "refs/loop/b/c", "refs/loop/b/d", "refs/loopy", "refs/heads/main", "refs/tags/t"} {
		refsGit(t, dir, "update-ref", n, a.String())
	}
	refsGit(t, dir, "pack-refs", "--all")
	refsGit(t, dir, "update-ref", "refs/loop/a", b.String())
	refsGit(t, dir, "update-ref", "refs/loop/z", b.String())
	refsGit(t, dir, "symbolic-ref", "refs/loop/sym", "refs/loop/z")
	refsGit(t, dir, "symbolic-ref", "refs/loop/dangling", "refs/loop/nothing")
	// Junk git ignores: a lock file, a file with a bad name, a broken ref.
	os.WriteFile(filepath.Join(r.CommonDir, "refs/loop/q.lock"), []byte(a.String()+"\n"), 0o644)
	os.WriteFile(filepath.Join(r.CommonDir, "refs/loop/bad..name"), []byte(a.String()+"\n"), 0o644)
	os.WriteFile(filepath.Join(r.CommonDir, "refs/loop/broken"), []byte("garbage\n"), 0o644)
	for _, prefix := range []string{"refs/loop/", "refs/loop", "refs/loop/b/", "refs/loop/b/c", "refs/", "", "refs/nothing/", "r"} {
		refs, err := r.ListRefs(prefix)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ref := range refs {
			got = append(got, ref.Hash.String()+" "+ref.Name)
		}
		out, _ := refsGitErr(dir, "for-each-ref", "--format=%(objectname) %(refname)")
		var want []string
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 41 && strings.HasPrefix(line[41:], prefix) && !strings.HasSuffix(line, "/broken") {
				want = append(want, line)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("ListRefs(%q):\n%s\nwant:\n%s", prefix, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if refs, err := r.ListRefs("HEAD"); err != nil || len(refs) != 0 {
		t.Errorf("ListRefs(HEAD) = %v, %v", refs, err)
	}
	// A broken ref is an error when read directly.
	if _, err := r.ReadRef("refs/loop/broken"); err == nil || errors.Is(err, ErrRefNotFound) || !strings.Contains(err.Error(), "broken") {
		t.Errorf("ReadRef of a broken ref: %v", err)
	}
	if h, err := r.ReadRef("refs/loop/sym"); err != nil || h != b {
		t.Errorf("ReadRef through a symbolic ref = %v, %v", h, err)
	}
	if _, err := r.ReadRef("refs/loop/dangling"); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("ReadRef of a dangling symbolic ref: %v", err)
	}
	if err := r.UpdateRef("refs/loop/sym", a, b, "x"); err == nil || !strings.Contains(err.Error(), "symbolic") {
		t.Errorf("UpdateRef through a symbolic ref: %v", err)
	}
	for _, bad := range []string{"../config", "refs/../config", "refs/loop/a..b", "loop/x", "refs/loop/x.lock", "/etc/passwd", "HEAD/x", "refs/loop/"} {
		if _, err := r.ReadRef(bad); err == nil || errors.Is(err, ErrRefNotFound) {
			t.Errorf("ReadRef(%q) = %v, want a name error", bad, err)
		}
		if err := r.UpdateRef(bad, a, ZeroHash, ""); err == nil {
			t.Errorf("UpdateRef(%q) succeeded", bad)
		}
	}
}

func TestRefsHeadAndWorktrees(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	if h, err := r.Head(); err != nil || !h.IsZero() {
		t.Fatalf("Head on an unborn branch = %v, %v; want zero, nil", h, err)
	}
	if _, err := r.ReadRef("HEAD"); !errors.Is(err, ErrRefNotFound) {
		t.Fatalf("ReadRef(HEAD) on an unborn branch: %v", err)
	}
	// Updating the checked-out branch also logs to HEAD's reflog, as git does.
	a := refsCommit(t, r, ZeroHash, "a")
	if err := r.UpdateRef("refs/heads/main", a, ZeroHash, "first"); err != nil {
		t.Fatal(err)
	}
	if h, err := r.Head(); err != nil || h != a {
		t.Fatalf("Head = %v, %v; want %v", h, err, a)
	}
	if out := refsGit(t, dir, "reflog", "show", "--format=%H %gs", "HEAD"); out != a.String()+" first" {
		t.Fatalf("HEAD reflog: %q", out)
	}
	b := refsCommit(t, r, a, "b")
	refsGit(t, dir, "update-ref", "--no-deref", "HEAD", b.String())
	if h, err := r.Head(); err != nil || h != b {
		t.Fatalf("detached Head = %v, %v; want %v", h, err, b)
	}
	refsGit(t, dir, "checkout", "-q", "main")

	// A linked worktree has its own HEAD and refs/worktree/, and shares everything else.
	wt := filepath.Join(t.TempDir(), "wt")
	refsGit(t, dir, "worktree", "add", "-q", "--detach", wt, b.String())
	w, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := w.Head(); err != nil || h != b {
		t.Fatalf("worktree Head = %v, %v; want %v", h, err, b)
	}
	if err := w.UpdateRef("refs/worktree/loop", b, ZeroHash, "wt"); err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateRef("refs/loop/shared", b, ZeroHash, "shared"); err != nil {
		t.Fatal(err)
	}
	if out := refsGit(t, wt, "rev-parse", "refs/worktree/loop", "refs/loop/shared"); out != b.String()+"\n"+b.String() {
		t.Fatalf("git in the worktree: %q", out)
	}
	if _, err := refsGitErr(dir, "rev-parse", "--verify", "-q", "refs/worktree/loop"); err == nil {
		t.Fatal("per-worktree ref visible from the main worktree")
	}
	if _, err := r.ReadRef("refs/worktree/loop"); !errors.Is(err, ErrRefNotFound) {
		t.Fatalf("main worktree reads the linked worktree's ref: %v", err)
	}
	if out := refsGit(t, wt, "reflog", "show", "--format=%gs", "refs/worktree/loop"); out != "wt" {
		t.Fatalf("per-worktree reflog: %q", out)
	}
	refsCheckListAgainstGit(t, w, wt, "refs/")
	refsCheckListAgainstGit(t, w, wt, "refs/worktree/")
	refsCheckListAgainstGit(t, r, dir, "refs/")
	refsGit(t, dir, "fsck", "--full", "--no-dangling")
}

func TestRefsLocked(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	a := refsCommit(t, r, ZeroHash, "a")
	if err := r.UpdateRef("refs/loop/x", a, ZeroHash, "x"); err != nil {
		t.Fatal(err)
	}
	old := refLockTimeout
	refLockTimeout = 80 * time.Millisecond
	defer func() { refLockTimeout = old }()

	lock := filepath.Join(r.CommonDir, "refs", "loop", "x.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := refsCommit(t, r, a, "b")
	start := time.Now()
	err := r.UpdateRef("refs/loop/x", b, a, "blocked")
	took := time.Since(start)
	if !errors.Is(err, ErrRefLocked) {
		t.Fatalf("UpdateRef with a held lock: %v, want ErrRefLocked", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "Remove "+lock+" if no git process is running") || strings.Contains(msg, "\n") {
		t.Fatalf("error does not name the lock and the fix on one line: %v", err)
	}
	if took < 70*time.Millisecond || took > time.Second {
		t.Fatalf("gave up after %v, want about %v", took, refLockTimeout)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("someone else's lock was removed: %v", err)
	}
	// git agrees the ref is locked.
	if _, err := refsGitErr(dir, "update-ref", "refs/loop/x", b.String(), a.String()); err == nil {
		t.Fatal("git updated a locked ref")
	}
	// The repository's core.filesRefLockTimeout wins over the default.
	refsGit(t, dir, "config", "core.filesRefLockTimeout", "0")
	r2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if err := r2.UpdateRef("refs/loop/x", b, a, "blocked"); !errors.Is(err, ErrRefLocked) || time.Since(start) > 50*time.Millisecond {
		t.Fatalf("with core.filesRefLockTimeout=0: %v after %v", err, time.Since(start))
	}
	// A lock released while we wait is taken.
	refLockTimeout = 2 * time.Second
	go func() {
		time.Sleep(20 * time.Millisecond)
		os.Remove(lock)
	}()
	if err := r.UpdateRef("refs/loop/x", b, a, "after wait"); err != nil {
		t.Fatalf("update after the lock was released: %v", err)
	}
	if out := refsGit(t, dir, "rev-parse", "refs/loop/x"); out != b.String() {
		t.Fatalf("git sees %s", out)
	}
	// packed-refs.lock held: deleting a packed ref fails with ErrRefLocked naming it.
	refsGit(t, dir, "pack-refs", "--all")
	oldPacked := packedRefsLockTimeout
	packedRefsLockTimeout = 30 * time.Millisecond
	defer func() { packedRefsLockTimeout = oldPacked }()
	plock := filepath.Join(r.CommonDir, "packed-refs.lock")
	os.WriteFile(plock, nil, 0o644)
	if err := r.UpdateRef("refs/loop/x", ZeroHash, b, "delete"); !errors.Is(err, ErrRefLocked) || !strings.Contains(err.Error(), plock) {
		t.Fatalf("delete with packed-refs locked: %v", err)
	}
	if out := refsGit(t, dir, "rev-parse", "refs/loop/x"); out != b.String() {
		t.Fatalf("failed delete changed the ref: %s", out)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("failed delete left the ref lock: %v", err)
	}
}

func TestCheckRefName(t *testing.T) {
	refsHermetic(t)
	dir := t.TempDir()
	names := []string{
		"refs/loop/x", "refs/heads/main", "a/b", "HEAD", "x", "@", "refs/@", "refs/a@b", "refs/a@{b", "refs/@{",
		"refs/a..b", "refs/a.b", "refs/.a", "refs/a.", "refs/a/", "/refs/a", "refs//a", "refs/a.lock", "refs/a.lock/b",
		"refs/a.lockx", "refs/lock", "refs/.lock", "refs/a b", "refs/a\tb", "refs/a:b", "refs/a?b", "refs/a[b", "refs/a]b",
		"refs/a\\b", "refs/a^b", "refs/a~b", "refs/a*b", "refs/*", "refs/a\x7fb", "refs/a\x01b", "refs/é", "refs/\xff\xfe",
		"refs/a{b}", "refs/a@", "refs/@a", "refs/-a", "refs/a-", "refs/a+b", "refs/a,b", "refs/a;b", "refs/a'b", "refs/a\"b",
		"refs/a|b", "refs/a<b>", "refs/a!b", "refs/a#b", "refs/a$b", "refs/a%b", "refs/a&b", "refs/a=b", "refs/a}b",
		"refs/heads/feature/x.y", "refs/heads/.hidden/x", "refs/heads/x/.y", "refs/..", "refs/.", "refs/...", "..", ".",
		"refs/loop/my-loop_1", "refs/loop/a.b.c", "refs/loop/a...b", "refs/loop/a/b/c/d/e", "refs/x.lock.lock",
		"refs/a.loc", "refs/a/.lock/b", "refs/a@/b", "@/a", "a/@", "refs/@@", "refs/a@{", "refs/heads/@", "",
		"refs/loop/" + strings.Repeat("x", 300), "refs/a/b.", "refs/a./b", "refs/a/..b", "refs/a/b..", "refs/a/b/",
		"refs/a\nb", "refs/a\x1bb", "refs/\u00a0", "refs/a\u2028b", "-", "refs/heads/-", "refs/a/@{", "/", "//", "a//",
	}
	for _, name := range names {
		err := CheckRefName(name)
		cmd := exec.Command("git", "check-ref-format", name)
		cmd.Dir = dir
		gitErr := cmd.Run()
		if _, ok := gitErr.(*exec.ExitError); gitErr != nil && !ok {
			t.Fatal(gitErr)
		}
		if (err == nil) != (gitErr == nil) {
			t.Errorf("CheckRefName(%q) = %v, but git check-ref-format says valid=%v", name, err, gitErr == nil)
		}
		if err != nil && (!strings.Contains(err.Error(), "invalid ref name") || strings.Count(err.Error(), "\n") > strings.Count(name, "\n")) {
			t.Errorf("CheckRefName(%q) message %q", name, err)
		}
	}
	// A NUL byte cannot even be passed to git; it is invalid.
	if CheckRefName("refs/a\x00b") == nil {
		t.Error("NUL accepted")
	}
	// Messages name the offending part.
	for name, part := range map[string]string{
		"refs/loop/a..b": `component "a..b" contains ".."`,
		"refs/loop/x y":  `component "x y" contains ' '`,
		"refs/x.lock":    `ends with ".lock"`,
		"loop":           "single component",
		"refs//x":        "empty component",
	} {
		if err := CheckRefName(name); err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("CheckRefName(%q) = %v, want it to mention %s", name, err, part)
		}
	}
}

// The race test: goroutines, child processes (this test binary re-run with refsRaceChildEnv set)
// and shell loops running git update-ref all move refs/loop/race at once. Each of ours is a
// read-modify-write: a new commit whose parent is the tip read, installed with UpdateRef and
// retried on ErrRefChanged or ErrRefLocked. No acknowledged update may be lost: the history
// must be one linear chain holding every acknowledged commit.
const (
	refsRaceChildEnv = "GITSTORE_REFS_RACE_CHILD"
	refsRaceRef      = "refs/loop/race"
)

type refsRaceStats struct {
	acked             []Hash
	changed, lockFail int
}

// refsRaceWorker increments the race ref until the deadline, and at least minUpdates times.
func refsRaceWorker(dir, id string, deadline time.Time, minUpdates int) (refsRaceStats, error) {
	var st refsRaceStats
	r, err := Open(dir)
	if err != nil {
		return st, err
	}
	for i := 0; i < minUpdates || time.Now().Before(deadline); i++ {
		for attempt := 0; ; attempt++ {
			cur, err := r.ReadRef(refsRaceRef)
			if err != nil {
				return st, err
			}
			h, err := r.WriteObject(CommitObject, refsCommitData(cur, fmt.Sprintf("%s %d.%d", id, i, attempt)))
			if err != nil {
				return st, err
			}
			err = r.UpdateRef(refsRaceRef, h, cur, "race "+id)
			if err == nil {
				st.acked = append(st.acked, h)
				// Pace the writers a little so that git's read-then-update window can win too.
				time.Sleep(time.Duration(rand.IntN(40_000)) * time.Microsecond)
				break
			}
			switch {
			case errors.Is(err, ErrRefChanged):
				st.changed++
			case errors.Is(err, ErrRefLocked):
				st.lockFail++
			default:
				return st, err
			}
		}
	}
	return st, nil
}

// TestRefsRaceChild is the child process of TestRefsRace; it does nothing in a normal run.
func TestRefsRaceChild(t *testing.T) {
	spec := os.Getenv(refsRaceChildEnv)
	if spec == "" {
		t.Skip("child of TestRefsRace only")
	}
	f := strings.Split(spec, "|")
	if len(f) != 4 {
		t.Fatalf("bad %s=%q", refsRaceChildEnv, spec)
	}
	deadline, _ := strconv.ParseInt(f[2], 10, 64)
	minUpdates, _ := strconv.Atoi(f[3])
	st, err := refsRaceWorker(f[0], f[1], time.Unix(0, deadline), minUpdates)
	for _, h := range st.acked {
		fmt.Printf("ACK %s\n", h)
	}
	fmt.Printf("STATS %d %d\n", st.changed, st.lockFail)
	if err != nil {
		t.Fatal(err)
	}
}

func TestRefsRace(t *testing.T) {
	if testing.Short() {
		t.Skip("race test skipped in -short mode")
	}
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	tree := refsEmptyTree(t, r)
	root := refsCommit(t, r, ZeroHash, "root")
	if err := r.UpdateRef(refsRaceRef, root, ZeroHash, "root"); err != nil {
		t.Fatal(err)
	}
	// Every writer runs for the same time (so the test takes about as long on a slow or busy
	// machine), with a minimum number of updates each.
	const goroutines, children, gitLoops, minUpdates = 4, 3, 2, 5
	const duration = 2 * time.Second

	// git's side: mostly no-op updates ($cur -> $cur, taking the same lock), every fourth a real
	// increment made with git commit-tree. Each loop runs until the stop file appears.
	stop := filepath.Join(t.TempDir(), "stop")
	script := `i=0
while [ ! -e "$STOP" ]; do
  i=$((i+1))
  cur=$(git rev-parse ` + refsRaceRef + `) || exit 1
  if [ $((i % 4)) -eq 0 ]; then
    new=$(git commit-tree -p "$cur" -m "git $LOOP $i" ` + tree.String() + `) || exit 1
    if err=$(git update-ref -m "race git" ` + refsRaceRef + ` "$new" "$cur" 2>&1); then echo "inc $new"; else echo "fail $err"; fi
  else
    if err=$(git update-ref ` + refsRaceRef + ` "$cur" "$cur" 2>&1); then echo noop; else echo "fail $err"; fi
  fi
done`
	var shells []*exec.Cmd
	var shellOuts []*bytes.Buffer
	for i := 0; i < gitLoops; i++ {
		shell := exec.Command("sh", "-c", script)
		shell.Dir = dir
		shell.Env = append(os.Environ(), "STOP="+stop, fmt.Sprintf("LOOP=%d", i))
		out := &bytes.Buffer{}
		shell.Stdout = out
		shell.Stderr = os.Stderr
		if err := shell.Start(); err != nil {
			t.Fatal(err)
		}
		shells = append(shells, shell)
		shellOuts = append(shellOuts, out)
	}
	start := time.Now()
	deadline := start.Add(duration)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var acked []Hash
	perSide := map[string]int{}
	changed, lockFail := 0, 0
	record := func(side string, st refsRaceStats) {
		mu.Lock()
		defer mu.Unlock()
		acked = append(acked, st.acked...)
		perSide[side] += len(st.acked)
		changed += st.changed
		lockFail += st.lockFail
	}
	for c := 0; c < children; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestRefsRaceChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|child%d|%d|%d", refsRaceChildEnv, dir, c, deadline.UnixNano(), minUpdates))
			out, err := cmd.CombinedOutput()
			var st refsRaceStats
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				switch {
				case len(f) == 2 && f[0] == "ACK":
					if h, perr := ParseHash(f[1]); perr == nil {
						st.acked = append(st.acked, h)
					}
				case len(f) == 3 && f[0] == "STATS":
					st.changed, _ = strconv.Atoi(f[1])
					st.lockFail, _ = strconv.Atoi(f[2])
				}
			}
			record("child processes", st)
			if err != nil || len(st.acked) < minUpdates {
				t.Errorf("child %d: %v, %d acks:\n%s", c, err, len(st.acked), out)
			}
		}()
	}
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := refsRaceWorker(dir, fmt.Sprintf("goroutine%d", g), deadline, minUpdates)
			record("goroutines", st)
			if err != nil {
				t.Errorf("goroutine %d: %v", g, err)
			}
		}()
	}
	wg.Wait()
	os.WriteFile(stop, nil, 0o644)
	for _, shell := range shells {
		if err := shell.Wait(); err != nil {
			t.Fatalf("git loop: %v", err)
		}
	}
	elapsed := time.Since(start)

	gitNoop, gitChanged, gitLocked := 0, 0, 0
	for _, out := range shellOuts {
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Fields(line)
			switch {
			case len(f) == 2 && f[0] == "inc":
				acked = append(acked, refsMustHash(t, f[1]))
				perSide["git"]++
			case len(f) == 1 && f[0] == "noop":
				gitNoop++
			case len(f) > 0 && f[0] == "fail":
				switch {
				case strings.Contains(line, "but expected"):
					gitChanged++
				case strings.Contains(line, "File exists"):
					gitLocked++
				default:
					t.Errorf("git update-ref failed: %s", line)
				}
			}
		}
	}

	history := strings.Split(refsGit(t, dir, "rev-list", "--first-parent", refsRaceRef), "\n")
	inHistory := make(map[string]bool, len(history))
	for _, h := range history {
		inHistory[h] = true
	}
	lost := 0
	for _, h := range acked {
		if !inHistory[h.String()] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged updates are not in the history", lost, len(acked))
	}
	if len(history) != len(acked)+1 {
		t.Errorf("history has %d commits, want %d acknowledged + root", len(history), len(acked))
	}
	if all := refsGit(t, dir, "rev-list", "--count", refsRaceRef); all != strconv.Itoa(len(history)) {
		t.Errorf("history is not linear: %s commits in all, %d on the first-parent chain", all, len(history))
	}
	reflog := strings.Split(refsGit(t, dir, "reflog", "show", "--format=%H", refsRaceRef), "\n")
	if len(reflog) != len(acked)+1 {
		t.Errorf("reflog has %d entries, want %d", len(reflog), len(acked)+1)
	}
	refsGit(t, dir, "fsck", "--full", "--no-dangling")
	if matches, _ := filepath.Glob(filepath.Join(r.CommonDir, "refs", "loop", "*.lock")); len(matches) > 0 {
		t.Errorf("lock files left: %v", matches)
	}
	t.Logf("race: %v; acknowledged updates: %d by %d goroutines, %d by %d child processes, %d by git update-ref "+
		"(%d shell loops, which also made %d no-op updates and failed %d times on a moved ref and %d times on a busy lock); "+
		"our retries: %d ErrRefChanged, %d ErrRefLocked",
		elapsed.Round(time.Millisecond), perSide["goroutines"], goroutines, perSide["child processes"], children,
		perSide["git"], gitLoops, gitNoop, gitChanged, gitLocked, changed, lockFail)
}

func BenchmarkRefs(b *testing.B) {
	refsHermetic(b)
	r, dir := refsNewRepo(b)
	prev := refsCommit(b, r, ZeroHash, "root")
	if err := r.UpdateRef("refs/loop/bench", prev, ZeroHash, "root"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		refsGit(b, dir, "update-ref", fmt.Sprintf("refs/loop/packed/%03d", i), prev.String())
	}
	refsGit(b, dir, "pack-refs", "--all")
	if err := r.UpdateRef("refs/loop/bench", prev, ZeroHash, "loose again"); err != nil && !errors.Is(err, ErrRefChanged) {
		b.Fatal(err)
	}
	b.Run("ReadRef-packed", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.ReadRef("refs/loop/packed/250"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Head", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Head(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ListRefs-500", func(b *testing.B) {
		for b.Loop() {
			if refs, err := r.ListRefs("refs/loop/"); err != nil || len(refs) != 501 {
				b.Fatal(len(refs), err)
			}
		}
	})
	commits := make([]Hash, 0, 1024)
	b.Run("UpdateRef", func(b *testing.B) {
		cur, err := r.ReadRef("refs/loop/bench")
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			next := refsCommit(b, r, cur, fmt.Sprint("bench ", len(commits)))
			commits = append(commits, next)
			b.StartTimer()
			if err := r.UpdateRef("refs/loop/bench", next, cur, "bench"); err != nil {
				b.Fatal(err)
			}
			cur = next
		}
	})
}
