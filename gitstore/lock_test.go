package gitstore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeRecord makes lockPath a lock held by owner, as acquireLock would have left it, and
// returns the record's path.
func fakeRecord(t *testing.T, r *Repo, lockPath string, owner lockOwner, content string, age time.Duration) string {
	t.Helper()
	rec := filepath.Join(r.lockRecordsDir(), owner.recordName())
	if err := os.MkdirAll(filepath.Dir(rec), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(rec, lockPath); err != nil {
		t.Fatal(err)
	}
	if age > 0 {
		old := time.Now().Add(-age)
		os.Chtimes(lockPath, old, old)
	}
	return rec
}

// startSleeper starts a process that lives until the test ends and returns its pid.
func startSleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// exitedPid is the pid of a process that has ended and been reaped.
func exitedPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestRefLockTakeover checks which locks an update takes over and which it waits for: only a
// lock whose owner record names a process of this host that is gone, or one under refs/loop/
// that no live process is known to hold and that is older than 12 hours.
func TestRefLockTakeover(t *testing.T) {
	refsHermetic(t)
	me := currentOwner()
	if me.HostKey == "" {
		t.Skip("this system tells no process start times: locks are never taken over by owner")
	}
	old := refLockTimeout
	refLockTimeout = 60 * time.Millisecond
	defer func() { refLockTimeout = old }()

	sleeper := startSleeper(t)
	sleeperStart, ok := processStart(sleeper)
	if !ok {
		t.Fatal("no start time for a live process")
	}
	owner := func(pid int, start uint64) *lockOwner {
		o := me
		o.Pid, o.Start = pid, start
		return &o
	}
	other := me
	other.HostKey, other.Host = "0123456789abcdef0123456789abcdef", "elsewhere"
	tests := []struct {
		name     string
		ref      string
		owner    *lockOwner // nil: a lock with no owner record, as git leaves one
		age      time.Duration
		takeover bool
		says     string // in the error when not taken over
	}{
		{"dead git-loop", "refs/loop/x", owner(exitedPid(t), 12345), 0, true, ""},
		{"pid reused by a later process", "refs/loop/x", owner(sleeper, sleeperStart+1), 0, true, ""},
		{"live git-loop", "refs/loop/x", owner(sleeper, sleeperStart), 0, false, "which is still running"},
		{"live git-loop, 2 days old", "refs/loop/x", owner(sleeper, sleeperStart), 48 * time.Hour, false, "which is still running"},
		{"git-loop on another host", "refs/loop/x", &other, 0, false, "cannot be checked from here"},
		{"git-loop on another host, 13 hours old", "refs/loop/x", &other, 13 * time.Hour, true, ""},
		{"git's own lock", "refs/loop/x", nil, 0, false, "if no git process is running"},
		{"git's own lock, 11 hours old", "refs/loop/x", nil, 11 * time.Hour, false, "if no git process is running"},
		{"git's own lock, 2 days old", "refs/loop/x", nil, 48 * time.Hour, true, ""},
		{"git's own lock on a branch, 2 days old", "refs/heads/x", nil, 48 * time.Hour, false, "if no git process is running"},
		{"dead git-loop on a branch", "refs/heads/x", owner(exitedPid(t), 12345), 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := refsNewRepo(t)
			a := refsCommit(t, r, ZeroHash, "a")
			b := refsCommit(t, r, a, "b")
			if err := r.UpdateRef(tt.ref, a, ZeroHash, "a"); err != nil {
				t.Fatal(err)
			}
			lock := r.refPath(tt.ref) + lockSuffix
			record := ""
			if tt.owner != nil {
				record = fakeRecord(t, r, lock, *tt.owner, a.String()+"\n", tt.age)
			} else {
				os.WriteFile(lock, []byte(b.String()+"\n"), 0o644)
				if tt.age > 0 {
					old := time.Now().Add(-tt.age)
					os.Chtimes(lock, old, old)
				}
			}
			info := r.InspectRefLock(tt.ref)
			if info == nil || info.Stale != tt.takeover || (info.Owner != "") != (tt.owner != nil) {
				t.Fatalf("InspectRefLock = %+v, want stale %v, owned %v", info, tt.takeover, tt.owner != nil)
			}
			err := r.UpdateRef(tt.ref, b, a, "b")
			if tt.takeover {
				if err != nil {
					t.Fatalf("stale lock not taken over: %v", err)
				}
				if got := refsGit(t, dir, "rev-parse", tt.ref); got != b.String() {
					t.Fatalf("ref is %s, want %s", got, b)
				}
				if _, err := os.Lstat(lock); !os.IsNotExist(err) {
					t.Errorf("lock still there: %v", err)
				}
				if record != "" {
					if _, err := os.Lstat(record); !os.IsNotExist(err) {
						t.Errorf("dead owner's record still there: %v", err)
					}
				}
				if r.InspectRefLock(tt.ref) != nil {
					t.Errorf("a lock is reported after the update")
				}
				refsGit(t, dir, "fsck", "--no-dangling")
				return
			}
			if !errors.Is(err, ErrRefLocked) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), lock) {
				t.Fatalf("got %v, want ErrRefLocked saying %q and naming %s", err, tt.says, lock)
			}
			if _, err := os.Lstat(lock); err != nil {
				t.Fatalf("a lock that is not stale was removed: %v", err)
			}
			if got := refsGit(t, dir, "rev-parse", tt.ref); got != a.String() {
				t.Fatalf("ref moved to %s under a held lock", got)
			}
		})
	}
}

// lockHolderChildEnv makes TestLockHolderChild take a ref lock, say so, and wait to be killed.
const lockHolderChildEnv = "GITSTORE_LOCK_HOLDER_CHILD"

// TestLockHolderChild is the child process of TestRefLockKilledHolder.
func TestLockHolderChild(t *testing.T) {
	dir := os.Getenv(lockHolderChildEnv)
	if dir == "" {
		t.Skip("child of TestRefLockKilledHolder only")
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := acquireLock(r.refPath("refs/loop/x"), r.refLockOptions("refs/loop/x"))
	if err != nil {
		t.Fatal(err)
	}
	lk.write([]byte(strings.Repeat("0", 40)+"\n"), true)
	fmt.Println("LOCKED")
	time.Sleep(time.Minute)
}

// TestRefLockKilledHolder kills a process holding a ref lock with SIGKILL: the next update
// takes the lock over at once, and git sees a sound repository.
func TestRefLockKilledHolder(t *testing.T) {
	refsHermetic(t)
	if currentOwner().HostKey == "" {
		t.Skip("this system tells no process start times")
	}
	r, dir := refsNewRepo(t)
	a := refsCommit(t, r, ZeroHash, "a")
	b := refsCommit(t, r, a, "b")
	if err := r.UpdateRef("refs/loop/x", a, ZeroHash, "a"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderChild$")
	cmd.Env = append(os.Environ(), lockHolderChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "LOCKED") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", buf[:n])
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	old := refLockTimeout
	refLockTimeout = 0 // no waiting: a dead holder's lock is taken at the first try
	defer func() { refLockTimeout = old }()
	if err := r.UpdateRef("refs/loop/x", b, a, "after the kill"); err != nil {
		t.Fatalf("update after the holder was killed: %v", err)
	}
	if got := refsGit(t, dir, "rev-parse", "refs/loop/x"); got != b.String() {
		t.Fatalf("ref is %s", got)
	}
	if entries, _ := os.ReadDir(r.lockRecordsDir()); len(entries) != 1 || entries[0].Name() != "break" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("lock records left: %v", names)
	}
	refsGit(t, dir, "fsck", "--no-dangling")
}

// TestLockRecordSweepAlone: a record a killed process left before it could link it is
// removed by the next writer even when it is the only other file there (no lock was ever
// broken, so there is no break mutex file beside it).
func TestLockRecordSweepAlone(t *testing.T) {
	refsHermetic(t)
	me := currentOwner()
	if me.HostKey == "" {
		t.Skip("this system tells no process start times")
	}
	r, _ := refsNewRepo(t)
	a := refsCommit(t, r, ZeroHash, "a")
	dead := me
	dead.Pid, dead.Start = exitedPid(t), 99
	os.MkdirAll(r.lockRecordsDir(), 0o777)
	left := filepath.Join(r.lockRecordsDir(), dead.recordName())
	os.WriteFile(left, nil, 0o644)
	if err := r.UpdateRef("refs/loop/y", a, ZeroHash, "y"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(r.lockRecordsDir()); len(entries) != 0 {
		t.Errorf("records left: %v", entries)
	}
}

// TestLockRecordSweep checks that records no lock needs are removed by the next writer, and
// records that still are a lock are not.
func TestLockRecordSweep(t *testing.T) {
	refsHermetic(t)
	me := currentOwner()
	if me.HostKey == "" {
		t.Skip("this system tells no process start times")
	}
	r, _ := refsNewRepo(t)
	a := refsCommit(t, r, ZeroHash, "a")
	dir := r.lockRecordsDir()
	os.MkdirAll(dir, 0o777)
	dead := me
	dead.Pid, dead.Start = exitedPid(t), 99
	other := me
	other.HostKey = "ffff"
	mk := func(o lockOwner, age time.Duration) string {
		p := filepath.Join(dir, o.recordName())
		os.WriteFile(p, nil, 0o644)
		if age > 0 {
			t := time.Now().Add(-age)
			os.Chtimes(p, t, t)
		}
		return p
	}
	deadLoose := mk(dead, 0)
	otherOld := mk(other, 2*time.Hour)
	otherNew := mk(other, 0)
	lockPath := r.refPath("refs/loop/held") + lockSuffix
	os.MkdirAll(filepath.Dir(lockPath), 0o777)
	deadLocked := mk(dead, 0)
	os.Link(deadLocked, lockPath)

	if err := r.UpdateRef("refs/loop/y", a, ZeroHash, "y"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kept bool
	}{{deadLoose, false}, {otherOld, false}, {otherNew, true}, {deadLocked, true}} {
		_, err := os.Lstat(c.path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(c.path), kept, c.kept)
		}
	}
}
