package gitstore

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Automatic maintenance, as git's own commands do it. After `git commit`, `git merge`, `git
// am` and others write objects, git runs `git maintenance run --auto` (run_auto_maintenance in
// git's run-command.c), which skips everything unless maintenance.auto allows it and a task's
// condition holds; with no maintenance configuration the one task is gc, whose condition is
// `git gc --auto`'s: more loose objects than gc.auto (default 6700, estimated from
// objects/17) or more packs than gc.autoPackLimit (default 50). git-loop writes objects at
// every iteration and would otherwise leave a long loop's thousands of loose objects for the
// next git command to trip over.
//
// One addition: once its loose objects pass the loose-objects task's own threshold
// (maintenance.loose-objects.auto, default 100), since a loop writes about nine objects per
// iteration, git-loop starts a roll-up (rollup.go: a geometric repack, factor 2, under git
// maintenance's lock) where one is configured (UseRollUp), else git's loose-objects task
// (with gc); gc.auto=0, maintenance.auto=false and maintenance.loose-objects.auto=0 each turn
// it off.
//
// Two differences from git, both for the agent's sake. git-loop asks git's question first
// (below, for the default configuration), so the usual iteration starts no process at all;
// and it never waits: git is started in its own session with no terminal and nothing of
// git-loop's open (stdin, stdout and stderr on /dev/null), so a hook answers at once and the
// agent is never held by a repack. That git maintenance never runs twice at once is git's own
// doing: `git maintenance run` holds objects/maintenance.lock for its whole run (a second one
// exits), and `git gc` holds gc.pid (a second one on the same host exits while the first
// lives, or while the file is younger than 12 hours). git-loop adds no lock of its own.

// Defaults of the settings that decide whether `git gc --auto` has work, and whether the
// loose-objects task of `git maintenance run --auto` has (git's gc.c).
const (
	defaultGCAuto          = 6700
	defaultGCAutoPackLimit = 50
	defaultLooseObjectAuto = 100
)

// looseObjectTasks are the tasks git-loop asks for when its loose objects pile up: git's
// loose-objects task packs them in small batches (each a pack of its own, deltified within
// it), and gc, when gc.autoPackLimit says the packs are too many, repacks them into one.
// A loop writes about nine small objects per iteration, so waiting for gc.auto's 6,700 would
// leave a long loop's objects loose, each a file of its own, for most of its life.
var looseObjectTasks = []string{"loose-objects", "gc"}

// MaintenanceDecision says whether AutoMaintenance started git, and why (or why not).
type MaintenanceDecision struct {
	// Started is set when a `git maintenance run --auto` process was started.
	Started bool
	// Reason is a short explanation: "maintenance.auto=false", "gc.auto=0", "no work",
	// "too many loose objects", "too many packs", "loose objects to pack", "maintenance
	// configured".
	Reason string
	// Tasks are the maintenance tasks asked for (--task), each still run only when its own
	// condition holds (--auto); none means git's default.
	Tasks []string
	// RollUp is set when what was started is a roll-up (see RollUp, UseRollUp), not git's
	// maintenance.
	RollUp bool
}

// AutoMaintenance does what git does after a command that wrote objects: it starts `git
// maintenance run --auto --quiet` when that has work to do, detached (see above), and
// returns without waiting for it. Failing to start git is not an error of the caller's
// operation, whose objects are safely written: the decision says what happened.
func (r *Repo) AutoMaintenance() MaintenanceDecision {
	d := r.MaintenanceNeeded()
	if !d.Started {
		return d
	}
	if d.Reason == reasonLooseToPack || d.Reason == reasonPacksToMerge {
		if cmd := r.rollUpCommand(); cmd != nil {
			if err := r.startDetached(cmd); err != nil {
				return MaintenanceDecision{Reason: "could not start a roll-up: " + err.Error()}
			}
			d.Tasks, d.RollUp = nil, true
			return d
		}
		if d.Reason == reasonPacksToMerge {
			return MaintenanceDecision{Reason: reasonPacksToMerge + "; no roll-up program (UseRollUp)"}
		}
	}
	if err := r.startMaintenance(d.Tasks); err != nil {
		return MaintenanceDecision{Reason: "could not start git: " + err.Error()}
	}
	return d
}

// MaintenanceNeeded answers git's question without running git: would `git maintenance run
// --auto` do anything? Started is set when it would (nothing is started here). With any
// maintenance setting beyond maintenance.auto (a strategy, a task enabled or scheduled) the
// answer is left to git: Started is set and git decides.
func (r *Repo) MaintenanceNeeded() MaintenanceDecision {
	if !r.Config.Bool("maintenance", "", "auto", true) {
		return MaintenanceDecision{Reason: "maintenance.auto=false"}
	}
	for _, k := range r.Config.Keys() {
		if k.Section == "maintenance" && !(k.Subsection == "" && passiveMaintenanceKeys[k.Key]) && !(k.Subsection == "loose-objects" && k.Key == "auto") {
			return MaintenanceDecision{Started: true, Reason: "maintenance configured"}
		}
	}
	gcAuto := r.configInt("gc", "", "auto", defaultGCAuto)
	if gcAuto <= 0 {
		return MaintenanceDecision{Reason: "gc.auto=0"}
	}
	objects := filepath.Join(r.CommonDir, "objects")
	packs := localPacks(objects)
	if limit := r.configInt("gc", "", "autopacklimit", defaultGCAutoPackLimit); limit > 0 && int64(len(packs)) > limit {
		return MaintenanceDecision{Started: true, Reason: "too many packs"}
	}
	if looseOverThreshold(objects, (gcAuto+255)/256) {
		return MaintenanceDecision{Started: true, Reason: "too many loose objects"}
	}
	// The loose-objects task's own threshold (maintenance.loose-objects.auto, 0: never),
	// estimated from a sixteenth of the fan-out directories (git counts exactly before it
	// packs): objects/17 alone, as gc estimates its far larger threshold, would let a
	// hundred become five hundred, each a file of its own, before anything is packed.
	if limit := r.configInt("maintenance", "loose-objects", "auto", defaultLooseObjectAuto); limit != 0 {
		if limit < 0 || r.looseToPack(objects) > limit {
			return MaintenanceDecision{Started: true, Reason: reasonLooseToPack, Tasks: looseObjectTasks}
		}
		// the packs state writes leave (see InPack), one each: merged once a roll-up would
		// merge rollUpPackCount of them (the packs a roll-up merged have a .keep file, and
		// do not count; nor, when it comes to it, those it may not merge)
		if len(packs) >= rollUpPackCount && splitOf(weighPacks(objects, packs)) >= rollUpPackCount && splitOf(mergeablePacks(objects)) >= rollUpPackCount {
			return MaintenanceDecision{Started: true, Reason: reasonPacksToMerge}
		}
	}
	return MaintenanceDecision{Reason: "no work"}
}

// reasonLooseToPack is the decision's reason when loose objects are past the loose-objects
// task's threshold: a roll-up's work where one is configured (UseRollUp).
const reasonLooseToPack = "loose objects to pack"

// reasonPacksToMerge is the decision's reason when a roll-up would merge rollUpPackCount
// packs or more: a roll-up's work alone (git's own tasks would not merge them before
// gc.autoPackLimit).
const reasonPacksToMerge = "small packs to merge"

// rollUpPackCount is how many packs a roll-up must have to merge before one is started.
const rollUpPackCount = 8

// passiveMaintenanceKeys are maintenance settings that leave `git maintenance run --auto`
// to its default: maintenance.auto (read above), maintenance.repo (the repositories `git
// maintenance register` lists for the scheduler, in the global file) and
// maintenance.autoDetach (whether git itself would detach).
var passiveMaintenanceKeys = map[string]bool{"auto": true, "repo": true, "autodetach": true}

// configInt reads an integer setting, or def when it is unset or not a number.
func (r *Repo) configInt(section, subsection, key string, def int64) int64 {
	v := r.Config.Get(section, subsection, key)
	if v == "" {
		return def
	}
	n, err := ParseInt(v)
	if err != nil {
		return def
	}
	return n
}

// looseOverThreshold is git's too_many_loose_objects: more than threshold loose objects in
// objects/17, one 256th of the object names.
func looseOverThreshold(objects string, threshold int64) bool {
	f, err := os.Open(filepath.Join(objects, "17"))
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	var n int64
	for _, name := range names {
		if isLooseName(name) {
			if n++; n > threshold {
				return true
			}
		}
	}
	return false
}

// looseToPack estimates, as looseSampled does, the loose objects a roll-up would pack:
// those written since the last one started (its stamp), since a roll-up leaves the loose
// objects it packed for a later one to remove (rollupsettle.go). Their times are read only
// when the loose objects are too many without them.
func (r *Repo) looseToPack(objects string) int64 {
	n := looseSampled(objects)
	limit := r.configInt("maintenance", "loose-objects", "auto", defaultLooseObjectAuto)
	since := r.stampTime(rollUpPackedStamp)
	if n <= limit || since.IsZero() {
		return n
	}
	n = 0
	for i := 0; i < 256; i += 17 {
		sub := filepath.Join(objects, fmt.Sprintf("%02x", i))
		names, _ := readDirNames(sub)
		for _, name := range names {
			if !isLooseName(name) {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(sub, name)); err != nil || !fi.ModTime().Before(since) {
				n++
			}
		}
	}
	return 16 * n
}

// mergeablePacks weighs the packs a roll-up may merge (rollPack.mergeable), lightest first.
func mergeablePacks(objects string) []weighedPack {
	var w []weighedPack
	for _, p := range scanPacks(objects) {
		if p.mergeable() {
			w = append(w, weighedPack{p.name, p.weight})
		}
	}
	slices.SortStableFunc(w, func(a, b weighedPack) int { return cmp.Compare(a.weight, b.weight) })
	return w
}

// looseSampled estimates the loose objects from the sixteen fan-out directories 00, 11, …,
// ff: sixteen times what they hold.
func looseSampled(objects string) int64 { return 16 * countLooseEvery(objects, 17) }

// countLooseEvery counts the loose objects in every step-th fan-out directory, from 00.
func countLooseEvery(objects string, step int) int64 {
	var n int64
	for i := 0; i < 256; i += step {
		names, _ := readDirNames(filepath.Join(objects, fmt.Sprintf("%02x", i)))
		for _, name := range names {
			if isLooseName(name) {
				n++
			}
		}
	}
	return n
}

// isLooseName reports whether a fan-out directory's entry names a loose object (the 38 hex
// digits after the directory's two), not a temporary file.
func isLooseName(name string) bool {
	return len(name) == 38 && strings.Trim(name, "0123456789abcdef") == ""
}

// countPacks is git's too_many_packs count: local packs without a .keep file.
func countPacks(objects string) int64 { return int64(len(localPacks(objects))) }

// localPacks names the packs in objects/pack (pack-<hash>, and loose-<hash> from git's
// loose-objects task: any name, as git lists them, see packIndexes) that have no .keep file:
// those git's gc counts and its repack may rewrite.
func localPacks(objects string) []string {
	names, err := readDirNames(filepath.Join(objects, "pack"))
	if err != nil {
		return nil
	}
	keep := map[string]bool{}
	for _, n := range names {
		if base, ok := strings.CutSuffix(n, ".keep"); ok {
			keep[base] = true
		}
	}
	var packs []string
	for _, n := range names {
		if base, ok := strings.CutSuffix(n, ".pack"); ok && !strings.HasPrefix(n, ".") && !keep[base] {
			packs = append(packs, base)
		}
	}
	return packs
}

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// startMaintenance starts `git maintenance run --auto --quiet` (for tasks, when given) in r,
// detached (see startDetached).
func (r *Repo) startMaintenance(tasks []string) error {
	args := []string{"--git-dir=" + r.GitDir, "maintenance", "run", "--auto", "--quiet"}
	for _, t := range tasks {
		args = append(args, "--task="+t)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = r.CommonDir
	cmd.Env = CleanGitEnv()
	return r.startDetached(cmd)
}

// startDetached starts cmd in a session of its own with stdin, stdout and stderr on
// /dev/null, and does not wait for it (a goroutine reaps it if this process outlives it).
func (r *Repo) startDetached(cmd *exec.Cmd) error {
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	maintenanceRuns.Add(1)
	go func() {
		defer maintenanceRuns.Done()
		cmd.Wait() //nolint:errcheck // nothing to do with its outcome: git logs its own (gc.log)
	}()
	return nil
}

// maintenanceRuns counts the maintenance processes this process started and has not seen end.
var maintenanceRuns sync.WaitGroup

// WaitMaintenance waits for the `git maintenance` processes this process started to end
// (not for what they detach in turn, such as a gc with gc.autoDetach). Commands never wait;
// a test does, before it removes the repository.
func WaitMaintenance() { maintenanceRuns.Wait() }
