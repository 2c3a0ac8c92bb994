package gitstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// A roll-up is how git-loop packs what its iterations write: git's geometric repack (`git
// repack --geometric=2`, git's own incremental housekeeping), run as `git pack-objects
// --stdin-packs --unpacked`, the command that repack runs, with the packs chosen by repack's
// own rule (geometricSplit). It packs the loose objects and merges the small packs into
// larger ones so that, by object count, each pack is at least twice the next smaller one: a
// loop of n iterations keeps O(log n) packs, each deltified as a whole, instead of a new pack
// of a hundred objects every dozen iterations (git's loose-objects task), which left a
// 1,000-iteration loop 40 packs that shared no deltas and 1.3x the size a full gc gives. A
// large pack the user's repository already has is never rewritten: it is more than twice
// everything the loop wrote.
//
// It deletes nothing as it merges (git repack -d deletes the merged packs at once, under the
// feet of a git fsck that has listed them): the packs it merged are marked and kept, and
// removed by a later roll-up, at most once an hour (rollupsettle.go).
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
	// LooseAfter counts the loose objects in no pack: what the roll-up left to pack.
	LooseAfter  int64 `json:"loose_after"`
	PacksBefore int64 `json:"packs_before"`
	// PacksAfter counts the packs git counts (those without a .keep file): not the merged
	// packs kept for running readers, counted in Kept.
	PacksAfter int64 `json:"packs_after"`
	// Kept counts the packs merged into newer ones and kept for readers that may have listed
	// them; PackedLoose the loose objects already packed, kept likewise. Both go at a later
	// roll-up, at most once an hour.
	Kept        int64 `json:"kept_packs"`
	PackedLoose int64 `json:"packed_loose"`
	// Removed and LooseRemoved count what this roll-up removed of what earlier ones merged or
	// packed.
	Removed      int64 `json:"removed_packs"`
	LooseRemoved int64 `json:"removed_loose"`
	// Geometric is false when git has no --stdin-packs (before 2.32) and the roll-up listed
	// the objects to pack by hand (see repack).
	Geometric bool `json:"geometric"`
}

// RollUp runs a roll-up now and waits for it: under objects/maintenance.lock, the loose
// objects and the small packs packed into one (see repack), what this and earlier roll-ups
// merged marked and, at most once an hour, removed. It returns ErrMaintenanceRunning, having
// changed nothing, when the lock is held or gc.pid is fresh. Cancelling ctx stops git; the
// lock is released in every case but the process's own death, and then taken over by the
// next roll-up.
func (r *Repo) RollUp(ctx context.Context) (RollUpResult, error) { return r.rollUp(ctx, time.Now) }

// rollUp is RollUp with the clock now.
func (r *Repo) rollUp(ctx context.Context, now func() time.Time) (RollUpResult, error) {
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
	start := now()
	var written string
	written, res.Geometric, err = r.repack(ctx, objects)
	if err == nil {
		r.setStamp(rollUpPackedStamp, start) //nolint:errcheck // without it the next decision counts every loose object
		err = r.settle(ctx, objects, now(), written, &res)
	}
	res.PacksAfter = countPacks(objects)
	if err != nil { // what settle did not count
		res.LooseAfter, res.PackedLoose, _ = looseState(objects, scanPacks(objects))
	}
	return res, err
}

// settle marks the packs the roll-up merged (every object of which is now in a newer pack)
// and, when a roll-up last removed anything rollUpGrace ago or more, removes the packs
// marked at least rollUpGrace ago that are still redundant, and the loose objects already
// packed (git prune-packed). written is the pack the roll-up wrote, if any.
func (r *Repo) settle(ctx context.Context, objects string, now time.Time, written string, res *RollUpResult) error {
	packs := scanPacks(objects)
	for name := range redundantPacks(objects, packs, rollPack.mergeable, written) {
		if err := markMerged(objects, name); err != nil {
			return fmt.Errorf("mark merged pack %s: %w", name, err)
		}
	}
	packs = scanPacks(objects)
	unpacked, packedLoose, oldestLoose := looseState(objects, packs)
	due := packedLoose > 0 && now.Sub(oldestLoose) >= rollUpGrace
	for _, p := range packs {
		due = due || p.removable() && (!p.hasIdx || now.Sub(p.markedAt) >= rollUpGrace)
	}
	if due && now.Sub(r.stampTime(rollUpRemovedStamp)) >= rollUpGrace && !gcMayRun(r.CommonDir) {
		redundant := redundantPacks(objects, packs, rollPack.removable)
		for _, p := range packs {
			switch {
			case !p.removable():
			case !p.hasIdx, redundant[p.name] && now.Sub(p.markedAt) >= rollUpGrace:
				if err := removePack(objects, p.name); err != nil {
					return fmt.Errorf("remove merged pack %s: %w", p.name, err)
				}
				res.Removed++
			case !redundant[p.name]: // no longer merged anywhere (a git gc, say): a pack again
				if err := os.Remove(filepath.Join(objects, "pack", p.name+".keep")); err != nil {
					return fmt.Errorf("unmark pack %s: %w", p.name, err)
				}
			}
		}
		before := countLoose(objects)
		if err := r.gitQuiet(ctx, "prune-packed", "--quiet"); err != nil {
			return err
		}
		res.LooseRemoved = max(0, before-countLoose(objects))
		r.setStamp(rollUpRemovedStamp, now) //nolint:errcheck // without it the next roll-up removes again
		packs = scanPacks(objects)
		unpacked, packedLoose, _ = looseState(objects, packs)
	}
	res.LooseAfter, res.PackedLoose = unpacked, packedLoose
	for _, p := range packs {
		if p.marked {
			res.Kept++
		}
	}
	return nil
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

// repack packs, into one new pack, the loose objects and the packs a geometric repack
// (factor 2) would merge, and returns the new pack's name (none when there was nothing to
// pack). It runs what `git repack --geometric=2 -l` runs, `git pack-objects --stdin-packs
// --unpacked`, with the packs to merge and those to leave (their objects are not copied)
// named on its input, chosen by repack's own rule (geometricSplit) among the packs a roll-up
// may merge: not those someone keeps, promisor and cruft packs, packs a multi-pack-index
// lists or packs already merged (marked), whose objects are in a newer pack. git repack
// itself cannot leave the merged packs out: its --keep-pack and .keep files also keep their
// objects out of the new pack, so the pack they were merged into would be merged again
// without them. Where git does not know --stdin-packs (before 2.32) the same objects are
// listed to `git pack-objects` one by one.
func (r *Repo) repack(ctx context.Context, objects string) (written string, geometric bool, err error) {
	var merge []weighedPack
	var stay []string
	for _, p := range scanPacks(objects) {
		switch {
		case p.mergeable():
			merge = append(merge, weighedPack{p.name, p.weight})
		case p.excluded():
			stay = append(stay, p.name)
		}
	}
	slices.SortStableFunc(merge, func(a, b weighedPack) int { return cmp.Compare(a.weight, b.weight) })
	split := splitOf(merge)
	for _, p := range merge[split:] {
		stay = append(stay, p.name)
	}
	var in strings.Builder
	for _, p := range merge[:split] {
		in.WriteString(p.name + ".pack\n")
	}
	for _, name := range stay {
		in.WriteString("^" + name + ".pack\n")
	}
	args := []string{"pack-objects", "--local", "--non-empty", "--quiet"}
	if r.Config.Bool("repack", "", "usedeltabaseoffset", true) {
		args = append(args, "--delta-base-offset")
	}
	base := filepath.Join(objects, "pack", "pack")
	out, err := r.gitRun(ctx, strings.NewReader(in.String()), append(args, "--stdin-packs", "--unpacked", base)...)
	if !unknownOption(err) {
		return strings.TrimSpace(out), true, err
	}
	list, err := objectList(objects, merge[:split], stay)
	if err != nil {
		return "", false, err
	}
	out, err = r.gitRun(ctx, strings.NewReader(list), append(args, base)...)
	return strings.TrimSpace(out), false, err
}

// objectList lists, one name a line, the objects of the packs merge and the loose objects,
// leaving out those in the packs stay: what `pack-objects --stdin-packs --unpacked` packs.
func objectList(objects string, merge []weighedPack, stay []string) (string, error) {
	var staying []*packIndex
	defer func() {
		for _, x := range staying {
			x.close()
		}
	}()
	for _, name := range stay {
		x, err := openPackIndex(filepath.Join(objects, "pack", name+".idx"))
		if err != nil {
			return "", err
		}
		staying = append(staying, x)
	}
	seen := map[plumbing.Hash]bool{}
	var b strings.Builder
	add := func(h plumbing.Hash) {
		if seen[h] {
			return
		}
		seen[h] = true
		for _, x := range staying {
			if x.find(h) >= 0 {
				return
			}
		}
		b.WriteString(h.String() + "\n")
	}
	for _, p := range merge {
		x, err := openPackIndex(filepath.Join(objects, "pack", p.name+".idx"))
		if err != nil {
			return "", err
		}
		for i := 0; i < x.count; i++ {
			add(plumbing.Hash(x.name(i)))
		}
		x.close()
	}
	for i := 0; i < 256; i++ {
		names, _ := readDirNames(filepath.Join(objects, hexByte(i)))
		for _, name := range names {
			if h, err := ParseHash(hexByte(i) + name); err == nil && isLooseName(name) {
				add(plumbing.Hash(h))
			}
		}
	}
	return b.String(), nil
}

// unknownOption reports whether git failed with its usage error (exit 129), which an option
// it does not know gets.
func unknownOption(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == 129
}

// gitQuiet runs git in r with args (see gitRun).
func (r *Repo) gitQuiet(ctx context.Context, args ...string) error {
	_, err := r.gitRun(ctx, nil, args...)
	return err
}

// gitRun runs git in r with args and stdin, and returns its standard output; its stderr is
// kept for the error. Where the system can, git is killed should this process die first (a
// roll-up killed mid-run must not leave a repack running that the next roll-up, taking the
// dead one's lock over, would run beside).
func (r *Repo) gitRun(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + r.GitDir}, args...)...)
	cmd.Dir = r.CommonDir
	cmd.Env = CleanGitEnv()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	runtime.LockOSThread() // the parent-death signal follows the thread that started the child
	defer runtime.UnlockOSThread()
	dieWithParent(cmd)
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
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
