package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// countObjectsField is one field of `git count-objects -v`, as a number.
func countObjectsField(t *testing.T, dir, field string) int64 {
	t.Helper()
	for _, line := range strings.Split(refsGit(t, dir, "count-objects", "-v"), "\n") {
		if v, ok := strings.CutPrefix(line, field+": "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("git count-objects printed no %s", field)
	return 0
}

// unpackedLoose is what git counts as loose objects in no pack: count-objects's count less
// its prune-packable (the loose objects also in a pack, which a roll-up leaves).
func unpackedLoose(t *testing.T, dir string) int64 {
	t.Helper()
	return countObjectsField(t, dir, "count") - countObjectsField(t, dir, "prune-packable")
}

// keptPacks counts the packs with a .keep file (count-objects counts them among its packs;
// git gc and a roll-up leave them), and unkeptPacks those without.
func keptPacks(t *testing.T, dir string) int64 {
	t.Helper()
	keeps, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.keep"))
	return int64(len(keeps))
}

func unkeptPacks(t *testing.T, dir string) int64 {
	t.Helper()
	return countObjectsField(t, dir, "packs") - keptPacks(t, dir)
}

// smallPacks commits n rounds of files, packing each round's objects into a pack of its own
// (`git repack -d`, incremental), as git's loose-objects task leaves a loop's objects; then
// commits one more round and leaves it loose.
func smallPacks(t *testing.T, dir string, n int) {
	t.Helper()
	for i := 0; i <= n; i++ {
		for j := 0; j < 5; j++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", j)), []byte(fmt.Sprintf("round %d file %d\n", i, j)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		refsGit(t, dir, "add", "-A")
		refsGit(t, dir, "commit", "-qm", fmt.Sprintf("round %d", i))
		if i < n {
			refsGit(t, dir, "repack", "-d", "-q")
		}
	}
}

// allObjects lists every object in dir's object store, sorted (git's own listing).
func allObjects(t *testing.T, dir string) string {
	t.Helper()
	return refsGit(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
}

// TestRollUpMergesSmallPacks: a roll-up packs every loose object and merges packs of like
// size into one, losing no object; what it reports is what git counts. It removes nothing:
// the packs it merged are kept (marked with a .keep file), and the loose objects it packed.
func TestRollUpMergesSmallPacks(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	smallPacks(t, dir, 6)
	before := allObjects(t, dir)
	if got := countObjectsField(t, dir, "packs"); got != 6 {
		t.Fatalf("set-up: %d packs, want 6", got)
	}
	loose := countObjectsField(t, dir, "count")
	res, err := r.RollUp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := RollUpResult{LooseBefore: loose, PacksBefore: 6, LooseAfter: unpackedLoose(t, dir), PacksAfter: unkeptPacks(t, dir),
		Kept: keptPacks(t, dir), PackedLoose: countObjectsField(t, dir, "prune-packable"), Geometric: true}
	if res != want {
		t.Errorf("RollUp = %+v, want %+v (git count-objects)", res, want)
	}
	if res.LooseAfter != 0 || res.PacksAfter > 2 || res.PackedLoose != loose || res.PacksAfter+res.Kept != 7 {
		t.Errorf("after a roll-up: %+v; want none loose and at most two packs, the %d loose objects and 6 packs kept", res, loose)
	}
	if after := allObjects(t, dir); after != before {
		t.Errorf("objects changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	refsGit(t, dir, "fsck", "--strict", "--no-dangling")
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", "maintenance.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("maintenance.lock left behind: %v", err)
	}
}

// historyPack commits 300 files and packs everything into one pack, far larger than what a
// few state writes leave, as a repository's own history is; it returns the pack's path.
func historyPack(t *testing.T, dir string) string {
	t.Helper()
	for j := 0; j < 300; j++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("history%d", j)), []byte(fmt.Sprintf("history %d\n", j)), 0o644)
	}
	refsGit(t, dir, "add", "-A")
	refsGit(t, dir, "commit", "-qm", "history")
	refsGit(t, dir, "repack", "-a", "-d", "-q")
	packs := packFiles(t, dir)
	if len(packs) != 1 {
		t.Fatalf("set-up: packs %v", packs)
	}
	return packs[0]
}

// TestRollUpKeepsALargePack: a pack far larger than the loop's objects (a repository's own
// history) is not rewritten by a roll-up.
func TestRollUpKeepsALargePack(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	big := historyPack(t, dir)
	smallPacks(t, dir, 3)
	if _, err := r.RollUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(big); err != nil {
		t.Errorf("the large pack was rewritten: %v", err)
	}
	if got := unkeptPacks(t, dir); got != 2 {
		t.Errorf("%d packs, want 2: the large one and the small ones merged", got)
	}
}

// TestRollUpWaitsForOtherMaintenance: while git's maintenance holds its lock, or gc.pid is
// fresh, a roll-up changes nothing and says so; it leaves the other's lock alone. A gc.pid
// older than git's 12 hours is stale, as git gc takes it.
func TestRollUpWaitsForOtherMaintenance(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	smallPacks(t, dir, 1)
	lock := filepath.Join(dir, ".git", "objects", "maintenance.lock")
	gcPid := filepath.Join(dir, ".git", "gc.pid")
	for _, held := range []string{lock, gcPid} {
		if err := os.WriteFile(held, []byte("12345 host\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		loose := countObjectsField(t, dir, "count")
		_, err := r.RollUp(context.Background())
		if !errors.Is(err, ErrMaintenanceRunning) || !strings.Contains(err.Error(), held) {
			t.Errorf("with %s: RollUp error %v, want ErrMaintenanceRunning naming it", held, err)
		}
		if got := countObjectsField(t, dir, "count"); got != loose {
			t.Errorf("with %s: loose objects %d → %d", held, loose, got)
		}
		if _, err := os.Stat(held); err != nil {
			t.Errorf("the other's %s was removed: %v", held, err)
		}
		os.Remove(held)
	}
	os.WriteFile(gcPid, []byte("12345 host\n"), 0o644)
	old := time.Now().Add(-13 * time.Hour)
	os.Chtimes(gcPid, old, old)
	if res, err := r.RollUp(context.Background()); err != nil || res.LooseAfter != 0 {
		t.Errorf("with a stale gc.pid: RollUp = %+v, %v; want the loose objects packed", res, err)
	}
}

// TestRollUpWithoutGeometric: a git older than 2.32 rejects --stdin-packs as an unknown
// option (exit 129). The roll-up then lists the objects of the packs a geometric one would
// merge, with the loose objects, to git pack-objects by hand: the repository's large pack
// stays as it is, and an object nothing refers to yet (a state write whose ref has not
// moved) is packed too.
func TestRollUpWithoutGeometric(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	big := historyPack(t, dir)
	smallPacks(t, dir, 3)
	unreferenced := strings.TrimSpace(refsGitIn(t, dir, "not referred to yet\n", "hash-object", "-w", "--stdin"))
	before := allObjects(t, dir)
	bin := t.TempDir()
	old := fmt.Sprintf("#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --stdin-packs*) echo \"error: unknown option \\`$a'\" >&2; exit 129;; esac; done\nexec %q \"$@\"\n", realGit)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(old), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	res, err := r.RollUp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Geometric || res.LooseAfter != 0 || res.PacksAfter != 2 || res.Kept != 3 {
		t.Errorf("RollUp = %+v, want no loose object, 2 packs and the 3 merged ones kept, not geometric", res)
	}
	if _, err := os.Stat(big); err != nil {
		t.Errorf("the large pack was rewritten: %v", err)
	}
	if got := unpackedLoose(t, dir); got != 0 {
		t.Errorf("%d loose objects in no pack, want none (the unreferenced %s packed too)", got, unreferenced)
	}
	if after := allObjects(t, dir); after != before {
		t.Errorf("objects changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	refsGit(t, dir, "fsck", "--no-dangling")
}

const rollUpChildEnv = "GITSTORE_TEST_ROLLUP_CHILD"

// TestRollUpChild is the roll-up program TestAutoMaintenanceStartsRollUp configures: it
// rolls up the repository of the directory it is started in, as `git-loop maintenance` does.
func TestRollUpChild(t *testing.T) {
	if os.Getenv(rollUpChildEnv) == "" {
		t.Skip("run by TestAutoMaintenanceStartsRollUp")
	}
	r, err := OpenFromEnv(".")
	if err == nil {
		_, err = r.RollUp(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestAutoMaintenanceStartsRollUp: past the loose-objects threshold, with a roll-up program
// configured, AutoMaintenance starts it (not git's loose-objects task) in the worktree, and
// it packs the loose objects.
func TestAutoMaintenanceStartsRollUp(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	looseIn(t, dir, 0x11, 7) // 7*16 > 100: past the loose-objects task's threshold
	refsGit(t, dir, "config", "maintenance.auto", "true")
	refsGit(t, dir, "config", "gc.auto", "6700")
	t.Setenv(rollUpChildEnv, "1")
	UseRollUp(func() (string, error) { return os.Args[0], nil }, os.Args[0], "-test.run=^TestRollUpChild$", "-test.count=1")
	defer UseRollUp(nil)
	d := reopen(t, dir).AutoMaintenance()
	if !d.Started || !d.RollUp || d.Reason != reasonLooseToPack || d.Tasks != nil {
		t.Fatalf("AutoMaintenance = %+v, want a roll-up started for loose objects", d)
	}
	WaitMaintenance()
	if got := unpackedLoose(t, dir); got != 0 {
		t.Errorf("%d loose objects in no pack after the roll-up", got)
	}
	refsGit(t, dir, "fsck", "--no-dangling")
}

// TestRollUpTakesOverAKilledRollUp: a roll-up killed while it held the lock (its owner record
// names a process that is gone) does not keep later ones, or git's maintenance, out: the
// next roll-up takes the lock over. One whose owner still runs is waited for.
func TestRollUpTakesOverAKilledRollUp(t *testing.T) {
	refsHermetic(t)
	me := currentOwner()
	if me.HostKey == "" {
		t.Skip("this system tells no process start times: locks are never taken over by owner")
	}
	r, dir := refsNewRepo(t)
	smallPacks(t, dir, 1)
	lock := filepath.Join(dir, ".git", "objects", "maintenance.lock")
	held := func(o lockOwner) {
		os.MkdirAll(r.lockRecordsDir(), 0o777)
		record := filepath.Join(r.lockRecordsDir(), o.recordName())
		if err := os.WriteFile(record, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(record, lock); err != nil {
			t.Fatal(err)
		}
	}
	live := me
	live.Pid = startSleeper(t)
	live.Start, _ = processStart(live.Pid)
	held(live)
	_, err := r.RollUp(context.Background())
	if !errors.Is(err, ErrMaintenanceRunning) || !strings.Contains(err.Error(), "still running") {
		t.Errorf("with a live roll-up's lock: %v, want ErrMaintenanceRunning saying it still runs", err)
	}
	os.Remove(lock)

	dead := me
	dead.Pid, dead.Start = exitedPid(t), 99
	held(dead)
	res, err := r.RollUp(context.Background())
	if err != nil || res.LooseAfter != 0 {
		t.Fatalf("with a killed roll-up's lock: RollUp = %+v, %v; want the lock taken over", res, err)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left after the roll-up: %v", err)
	}
}

// TestGeometricSplit: how many packs a geometric roll-up merges, by git's rule.
func TestGeometricSplit(t *testing.T) {
	for _, tc := range []struct {
		weights []int64
		want    int
	}{
		{nil, 0},
		{[]int64{9}, 0},
		{[]int64{9, 9}, 2},
		{[]int64{9, 18, 36, 72}, 0},          // a progression already
		{[]int64{9, 9, 9, 9, 9, 9, 9, 9}, 8}, // eight state writes
		{[]int64{9, 9, 9, 9, 9, 9, 9, 9, 72, 1000000}, 9},  // and the 72 they now outweigh; the big pack stays
		{[]int64{9, 9, 9, 9, 9, 9, 9, 9, 200, 1000000}, 8}, // 200 >= 2*72: it stays
		{[]int64{1000000, 9}, 0},                           // a repository's pack and one write
		{[]int64{5, 100, 100, 1000}, 3},                    // 100 < 2*100 breaks it: 5, 100, 100 merge
	} {
		if got := geometricSplit(slices.Clone(tc.weights)); got != tc.want {
			t.Errorf("geometricSplit(%v) = %d, want %d", tc.weights, got, tc.want)
		}
	}
}

// TestMaintenanceNeededForStatePacks: the packs state writes leave ask for a roll-up once it
// would merge rollUpPackCount of them; maintenance.loose-objects.auto=0 turns that off too.
func TestMaintenanceNeededForStatePacks(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	refsGit(t, dir, "config", "maintenance.auto", "true")
	refsGit(t, dir, "config", "gc.auto", "6700")
	for i := 0; i < rollUpPackCount; i++ {
		r := reopen(t, dir)
		if d := r.MaintenanceNeeded(); d.Started {
			t.Fatalf("after %d state writes: %+v", i, d)
		}
		if err := r.InPack(func() error { batchObjectsSalted(t, r, 3, fmt.Sprint(i)); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if d := reopen(t, dir).MaintenanceNeeded(); !d.Started || d.Reason != reasonPacksToMerge {
		t.Errorf("after %d state writes: %+v, want a roll-up to merge them", rollUpPackCount, d)
	}
	if d := reopen(t, dir).AutoMaintenance(); d.Started {
		t.Errorf("without a roll-up program: %+v, want nothing started (git's tasks would not merge them)", d)
	}
	refsGit(t, dir, "config", "maintenance.loose-objects.auto", "0")
	if d := reopen(t, dir).MaintenanceNeeded(); d.Started {
		t.Errorf("with maintenance.loose-objects.auto=0: %+v", d)
	}
}

// TestRollUpKilledTakesGitWithIt: a roll-up killed while git repack runs (kill -9) takes
// the repack with it, so the next roll-up, which takes the dead one's lock over, runs alone.
func TestRollUpKilledTakesGitWithIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	smallPacks(t, dir, 1)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	pidFile := filepath.Join(bin, "repack.pid")
	fake := fmt.Sprintf("#!/bin/sh\ncase \"$*\" in *pack-objects*) echo $$ >%q; exec sleep 300;; esac\nexec %q \"$@\"\n", pidFile, realGit)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRollUpChild$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), rollUpChildEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	waitFor(t, "the repack started", func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	cmd.Process.Kill()
	cmd.Wait()
	waitFor(t, "the repack ended with its roll-up", func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
}
