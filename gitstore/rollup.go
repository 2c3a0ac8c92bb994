package gitstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// A roll-up is how git-loop packs what its iterations write: `git repack -d -l
// --geometric=2`, git's own incremental housekeeping (git 2.32 and later). It packs the loose
// objects and merges the small packs into larger ones so that, by object count, each pack
// is at least twice the next smaller one: a loop of n iterations keeps O(log n) packs, each
// deltified as a whole, instead of a new pack of a hundred objects every dozen iterations
// (git's loose-objects task), which left a 1,000-iteration loop 40 packs that shared no
// deltas and 1.3x the size a full gc gives. A large pack the user's repository already
// has is never rewritten: it is more than twice everything the loop wrote.
//
// A roll-up holds objects/maintenance.lock, the lock `git maintenance run` holds, for its
// whole run, so it never runs beside git's maintenance or beside another roll-up; and it
// does not start while gc.pid says a `git gc` may be running.

// ErrMaintenanceRunning is returned by RollUp when git's maintenance, a `git gc` or another
// roll-up is running in the repository.
var ErrMaintenanceRunning = errors.New("git maintenance is running")

// gcPidFresh is how long git gc trusts its gc.pid (builtin/gc.c: 12 hours).
const gcPidFresh = 12 * time.Hour

// RollUpResult says what a roll-up found and left: loose objects and packs, before and after.
type RollUpResult struct {
	LooseBefore int64 `json:"loose_before"`
	LooseAfter  int64 `json:"loose_after"`
	PacksBefore int64 `json:"packs_before"`
	PacksAfter  int64 `json:"packs_after"`
	// Geometric is false when git has no --geometric (before 2.32) and the roll-up was done
	// by hand (see repack).
	Geometric bool `json:"geometric"`
}

// RollUp runs a roll-up now and waits for it: under objects/maintenance.lock, `git repack
// -d -l --geometric=2 --quiet`. It returns ErrMaintenanceRunning, having changed nothing,
// when the lock is held or gc.pid is fresh. Cancelling ctx stops git; the lock is released
// in every case but the process's own death, and then taken over by the next roll-up.
func (r *Repo) RollUp(ctx context.Context) (RollUpResult, error) {
	objects := filepath.Join(r.CommonDir, "objects")
	res := RollUpResult{LooseBefore: countLoose(objects), PacksBefore: countPacks(objects)}
	if gcMayRun(r.CommonDir) {
		return res, fmt.Errorf("%w: %s is younger than 12 hours", ErrMaintenanceRunning, filepath.Join(r.CommonDir, "gc.pid"))
	}
	release, err := r.maintenanceLock(objects)
	if err != nil {
		return res, err
	}
	defer release()
	res.Geometric, err = r.repack(ctx)
	res.LooseAfter, res.PacksAfter = countLoose(objects), countPacks(objects)
	return res, err
}

// maintenanceLock takes objects/maintenance.lock, git maintenance's lock, born with its
// owner record as git-loop's other locks are (see LockPath): a roll-up that was killed (a
// power cut, kill -9) leaves a lock the next one takes over, instead of one that keeps git's
// maintenance and every roll-up out for good. A lock with no owner record is git's own.
func (r *Repo) maintenanceLock(objects string) (release func(), err error) {
	lk, err := acquireLock(filepath.Join(objects, "maintenance"), lockOptions{records: r.lockRecordsDir()})
	var held *errLockHeld
	if errors.As(err, &held) {
		if h := held.holder; h != nil && h.owner != nil {
			return nil, fmt.Errorf("%w: %s", ErrMaintenanceRunning, lockHeldText(held))
		}
		return nil, fmt.Errorf("%w: %s exists (remove it if no git maintenance is running)", ErrMaintenanceRunning, held.lockPath)
	}
	if err != nil {
		return nil, fmt.Errorf("take maintenance lock: %w", err)
	}
	return lk.rollback, nil
}

// repack runs the roll-up's git repack. Where git does not know --geometric (before 2.32) it
// does the same by hand: the packs a geometric roll-up would merge, with the loose objects,
// repacked into one (`-a` with `--keep-pack` for each pack that stays, git 2.19 and later;
// `-k` keeps what nothing refers to yet, such as a state write whose ref has not moved),
// else, before 2.19, only the loose objects packed.
func (r *Repo) repack(ctx context.Context) (geometric bool, err error) {
	err = r.gitQuiet(ctx, "repack", "-d", "-l", "--geometric=2", "--quiet")
	if !unknownOption(err) {
		return true, err
	}
	objects := filepath.Join(r.CommonDir, "objects")
	packs := weighPacks(objects, localPacks(objects))
	args := []string{"repack", "-a", "-d", "-l", "-k", "--quiet"}
	for _, p := range packs[splitOf(packs):] {
		args = append(args, "--keep-pack="+p.name+".pack")
	}
	if err = r.gitQuiet(ctx, args...); unknownOption(err) {
		err = r.gitQuiet(ctx, "repack", "-d", "-l", "--quiet")
	}
	return false, err
}

// unknownOption reports whether git failed with its usage error (exit 129), which an option
// it does not know gets.
func unknownOption(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == 129
}

// gitQuiet runs git in r with args, its stderr kept for the error. Where the system can, git
// is killed should this process die first (a roll-up killed mid-run must not leave a repack
// running that the next roll-up, taking the dead one's lock over, would run beside).
func (r *Repo) gitQuiet(ctx context.Context, args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + r.GitDir}, args...)...)
	cmd.Dir = r.CommonDir
	cmd.Env = CleanGitEnv()
	cmd.Stderr = &stderr
	runtime.LockOSThread() // the parent-death signal follows the thread that started the child
	defer runtime.UnlockOSThread()
	dieWithParent(cmd)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// gcMayRun reports whether gc.pid is fresh enough that git gc would take it as a gc still
// running (git removes it when gc ends).
func gcMayRun(commonDir string) bool {
	fi, err := os.Stat(filepath.Join(commonDir, "gc.pid"))
	return err == nil && time.Since(fi.ModTime()) < gcPidFresh
}

// countLoose counts the loose objects in the 256 fan-out directories.
func countLoose(objects string) int64 { return countLooseEvery(objects, 1) }

var rollUp struct {
	sync.Mutex
	exe  func() (string, error)
	args []string
}

// UseRollUp makes AutoMaintenance start a roll-up, when loose objects or small packs pile up,
// as the
// program exe names run with args (args[0] is the program's name as it sees it): git-loop's
// own `maintenance` command, which calls RollUp. Without it, AutoMaintenance asks git's
// maintenance for its loose-objects task instead.
func UseRollUp(exe func() (string, error), args ...string) {
	rollUp.Lock()
	defer rollUp.Unlock()
	rollUp.exe, rollUp.args = exe, args
}

// rollUpCommand is the command that runs a roll-up in r, or nil when none is configured.
func (r *Repo) rollUpCommand() *exec.Cmd {
	rollUp.Lock()
	exe, args := rollUp.exe, rollUp.args
	rollUp.Unlock()
	if exe == nil {
		return nil
	}
	path, err := exe()
	if err != nil || path == "" {
		return nil
	}
	cmd := &exec.Cmd{Path: path, Args: args, Dir: r.WorkTree, Env: withoutEnv(CleanGitEnv(), StallEnv)}
	if cmd.Dir == "" {
		cmd.Dir = r.CommonDir
	}
	if r.explicit { // opened through $GIT_DIR: the roll-up finds the repository the same way
		cmd.Env = append(cmd.Env, "GIT_DIR="+r.GitDir, "GIT_WORK_TREE="+r.WorkTree)
	}
	return cmd
}

// weighedPack is a pack (its base name, pack-<hash> or loose-<hash>) and its object count.
type weighedPack struct {
	name   string
	weight int64
}

// weighPacks weighs packs (base names in objects/pack) by their object count, read
// off their index's size (a version 2 index is 1,072 bytes plus 28 per object), lightest
// first; a pack without an index is left out.
func weighPacks(objects string, packs []string) []weighedPack {
	weighed := make([]weighedPack, 0, len(packs))
	for _, p := range packs {
		if fi, err := os.Lstat(filepath.Join(objects, "pack", p+".idx")); err == nil {
			weighed = append(weighed, weighedPack{p, max(0, (fi.Size()-1072)/28)})
		}
	}
	slices.SortStableFunc(weighed, func(a, b weighedPack) int { return cmp.Compare(a.weight, b.weight) })
	return weighed
}

// splitOf is how many of packs, lightest first, a geometric roll-up merges (geometricSplit).
func splitOf(packs []weighedPack) int {
	weights := make([]int64, len(packs))
	for i, p := range packs {
		weights[i] = p.weight
	}
	return geometricSplit(weights)
}

// geometricSplit is how many of the packs weighing weights a geometric roll-up (factor 2)
// merges, lightest first, by git's own rule (repack.c, split_pack_geometry): packs sorted by
// object count, the largest ones that each hold at least twice the next smaller stay, and
// the smaller ones are merged, together with any larger pack that holds less than twice
// what they hold. weights is sorted in place.
func geometricSplit(weights []int64) int {
	if len(weights) < 2 {
		return 0
	}
	slices.Sort(weights)
	i := len(weights) - 1
	for ; i > 0; i-- {
		if weights[i] < 2*weights[i-1] {
			break
		}
	}
	split := i
	if split > 0 {
		split++ // the larger of the pair that broke the progression is not in it either
	}
	var total int64
	for _, w := range weights[:split] {
		total += w
	}
	for ; split < len(weights) && weights[split] < 2*total; split++ {
		total += weights[split]
	}
	if split == 1 {
		return 0 // one pack is nothing to merge
	}
	return split
}

// withoutEnv is env without the variable name.
func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return out
}
