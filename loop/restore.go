package loop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/snapshots"
)

// RestoreResult says what a restore did.
type RestoreResult struct {
	Name     string `json:"loop"`
	Restored int    `json:"restored"` // the iteration the worktree now matches
	// Saved is the iteration that recorded the worktree as it was before: restoring it
	// undoes the restore.
	Saved   int `json:"saved"`
	Written int `json:"written"`
	Deleted int `json:"deleted"`
	// Submodules were left as they are, as git checkout leaves them: `git submodule update`.
	Submodules []string `json:"submodules,omitempty"`
	// NotesErr says why provenance notes were not written for the saved iteration.
	NotesErr error `json:"-"`
}

// ErrRestoreConflict: the worktree holds something the restore would destroy that is in
// no snapshot (an ignored file where the restored tree has a file).
var ErrRestoreConflict = errors.New("restore would lose files")

// Restore puts loop name's worktree back to iteration iter's snapshot. The worktree as it is
// is recorded into the loop first (an iteration of kind "restore", whatever the loop's status
// or limit), so nothing is lost: restoring that iteration undoes this. Only paths that differ
// between the two snapshots are touched: files of the old snapshot are written by git
// (checkout-index, so attributes and filters apply), and files that did not exist then are
// removed only when the current snapshot holds them; ignored files are never removed. The
// index, HEAD and refs other than the loop's are not touched.
func (s *Store) Restore(ctx context.Context, name string, iter int) (*RestoreResult, error) {
	if IsFetched(name) {
		return nil, readOnly(name)
	}
	h, err := s.OpenHistory(name)
	if err != nil {
		return nil, err
	}
	target, err := h.Get(iter)
	if err != nil {
		return nil, err
	}
	want, err := gitstore.ParseHash(target.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: iteration %d has no tree", ErrCorrupt, iter)
	}
	wt, err := s.WorktreeOf(name, h.State)
	if err != nil {
		return nil, err
	}
	// Plan on a snapshot of the worktree as it is, so a refusal records nothing; record
	// that same snapshot once the plan holds.
	snap, err := takeSnapshot(wt)
	if err != nil {
		return nil, err
	}
	paths, err := s.Repo.ChangedPaths(snap.Tree, want)
	if err != nil {
		return nil, err
	}
	plan, err := planRestore(s.Repo, wt.WorkTree, snap.Tree, want, paths)
	if err != nil {
		return nil, err
	}
	anyStatus := func(*State) error { return nil } // the worktree is saved even past the limit or the end
	_, saved, err := s.recordTaken(name, "restore", fmt.Sprintf("the worktree before restoring iteration %d", iter), anyStatus, snap)
	if err != nil {
		return nil, err
	}
	res := &RestoreResult{Name: name, Restored: iter, Saved: saved.Number, NotesErr: saved.NotesErr}
	if err := plan.apply(ctx, wt, want); err != nil {
		return res, err
	}
	res.Written, res.Deleted, res.Submodules = len(plan.write), len(plan.remove), plan.skipped
	return res, nil
}

// restorePlan is what a restore changes in the worktree.
type restorePlan struct {
	write   []string // files and symlinks of the restored tree, written from it
	remove  []string // files and symlinks only in the current snapshot (or there in place of a directory)
	skipped []string // submodules (gitlinks), which git checkout leaves alone too
}

// planRestore sorts the changed paths and refuses, before anything is touched, when the
// restore would overwrite or remove something that is in no snapshot (an ignored file, or a
// directory holding one), since nothing could bring it back.
func planRestore(r *gitstore.Repo, work string, cur, want gitstore.Hash, paths []string) (*restorePlan, error) {
	p := &restorePlan{}
	removing := map[string]bool{}
	for _, path := range paths {
		e, err := r.LookupEntry(want, path)
		switch {
		case errors.Is(err, gitstore.ErrObjectNotFound):
		case err != nil:
			return nil, err
		case e.Mode == gitstore.ModeGitlink:
			p.skipped = append(p.skipped, path)
			continue
		case e.Mode != gitstore.ModeTree:
			p.write = append(p.write, path)
			continue
		}
		// Absent from the restored tree, or a directory there: the current file goes.
		if ce, err := r.LookupEntry(cur, path); err == nil && ce.Mode == gitstore.ModeGitlink {
			p.skipped = append(p.skipped, path)
			continue
		}
		p.remove = append(p.remove, path)
		removing[path] = true
	}
	for _, path := range p.write {
		if err := checkWritable(r, work, cur, path, removing); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkWritable refuses a write at path when the worktree holds, at path or at one of its
// parent directories, something the current snapshot does not have.
func checkWritable(r *gitstore.Repo, work string, cur gitstore.Hash, path string, removing map[string]bool) error {
	parts := strings.Split(path, "/")
	for i := 1; i <= len(parts); i++ {
		at := strings.Join(parts[:i], "/")
		fi, err := os.Lstat(filepath.Join(work, filepath.FromSlash(at)))
		if err != nil {
			return nil // nothing there: the rest of the path is created
		}
		if fi.IsDir() {
			if i == len(parts) {
				if kept := unsnapshotted(work, at, removing); len(kept) > 0 {
					return fmt.Errorf("%w: %s must become a file again, but the directory there holds %s, which no snapshot has (ignored?); move it away and restore again",
						ErrRestoreConflict, at, strings.Join(kept[:min(len(kept), 3)], ", "))
				}
			}
			continue
		}
		if _, err := r.LookupEntry(cur, at); err != nil {
			what := "would be overwritten"
			if i < len(parts) {
				what = "is where the restored tree has a directory"
			}
			return fmt.Errorf("%w: %s %s, and the current snapshot does not hold it (ignored?), so nothing could bring it back; move it away and restore again", ErrRestoreConflict, at, what)
		}
		if i < len(parts) && !removing[at] {
			return nil // a snapshotted file the plan does not remove: git reports it
		}
	}
	return nil
}

// unsnapshotted lists the files under dir that the restore would not remove itself.
func unsnapshotted(work, dir string, removing map[string]bool) []string {
	var kept []string
	filepath.WalkDir(filepath.Join(work, filepath.FromSlash(dir)), func(f string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(work, f)
			if !removing[filepath.ToSlash(rel)] {
				kept = append(kept, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	return kept
}

// apply removes, then writes through git checkout-index from a scratch index of the
// restored tree (the user's index is never used).
func (p *restorePlan) apply(ctx context.Context, wt *gitstore.Repo, want gitstore.Hash) error {
	work := wt.WorkTree
	sort.Sort(sort.Reverse(sort.StringSlice(p.remove))) // children before their directories
	for _, path := range p.remove {
		abs := filepath.Join(work, filepath.FromSlash(path))
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore: remove %s: %w", path, err)
		}
		pruneEmptyDirs(work, filepath.Dir(abs))
	}
	if len(p.write) == 0 {
		return nil
	}
	for _, path := range p.write { // a directory that held only removed files is gone now
		if fi, err := os.Lstat(filepath.Join(work, filepath.FromSlash(path))); err == nil && fi.IsDir() {
			os.RemoveAll(filepath.Join(work, filepath.FromSlash(path)))
		}
	}
	index, err := os.CreateTemp("", "git-loop-restore-index-*")
	if err != nil {
		return fmt.Errorf("restore: scratch index: %w", err)
	}
	index.Close()
	os.Remove(index.Name()) // git writes it; an empty file is not an index
	defer os.Remove(index.Name())
	if err := gitIn(ctx, wt, index.Name(), nil, "read-tree", want.String()); err != nil {
		return err
	}
	var list bytes.Buffer
	for _, path := range p.write {
		list.WriteString(path)
		list.WriteByte(0)
	}
	return gitIn(ctx, wt, index.Name(), &list, "checkout-index", "-f", "-z", "--stdin")
}

// gitIn runs git in wt's worktree with index as its index file.
func gitIn(ctx context.Context, wt *gitstore.Repo, index string, stdin *bytes.Buffer, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = wt.WorkTree
	cmd.Env = append(wt.GitEnv(), "GIT_INDEX_FILE="+index)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("restore: git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

// pruneEmptyDirs removes dir and its parents while they are empty, up to work.
func pruneEmptyDirs(work, dir string) {
	for dir != work && strings.HasPrefix(dir, work) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// recordSnapshot records the loop's worktree as a new iteration of kind (with reason) when
// allow accepts the loop's state. Checkpoints and restores use it.
func (s *Store) recordSnapshot(name, kind, reason string, allow func(*State) error) (*State, *Iteration, error) {
	return s.recordTaken(name, kind, reason, allow, nil)
}

// recordTaken is recordSnapshot with the snapshot already taken (nil: take it now).
func (s *Store) recordTaken(name, kind, reason string, allow func(*State) error, snap *snapshots.Result) (*State, *Iteration, error) {
	_, cur, err := s.ReadState(name)
	if err != nil {
		return nil, nil, err
	}
	if err := allow(cur); err != nil {
		return nil, nil, err
	}
	if snap == nil {
		wt, err := s.WorktreeOf(name, cur)
		if err != nil {
			return nil, nil, err
		}
		prefetched := s.prefetch(name, cur.Iteration+1)
		snap, err = takeSnapshot(wt)
		<-prefetched
		if err != nil {
			return nil, nil, err
		}
	}
	var rec *Iteration
	var recorded *change
	st, err := s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		if err := allow(st); err != nil {
			return nil, err
		}
		prev, _ := gitstore.ParseHash(st.Snapshot)
		prevTree, _ := gitstore.ParseHash(st.Tree)
		next := *st
		next.Iteration++
		snapCommit, changed, err := s.snapshotCommit(prev, prevTree, snap.Tree, name, next.Iteration)
		if err != nil {
			return nil, err
		}
		now := s.Now().UTC()
		next.Snapshot, next.Tree, next.UpdatedAt = snapCommit.String(), snap.Tree.String(), now
		if st.Status == StatusActive {
			next.Reason = kind // a paused loop keeps the reason it was paused for
		}
		rec = &Iteration{Number: next.Iteration, Kind: kind, At: now, Snapshot: next.Snapshot, Tree: next.Tree, Changed: changed,
			Files: snap.Files, Hashed: snap.Hashed, Reason: reason}
		recorded = &change{state: next, iteration: rec, snapshot: snapCommit, subject: fmt.Sprintf("loop %s: %s, iteration %d", name, kind, next.Iteration)}
		return recorded, nil
	})
	if err == nil && rec != nil && recorded != nil {
		rec.NotesErr = recorded.notesErr
	}
	return st, rec, err
}

// ResumeFrom resumes a paused loop from iteration iter: the worktree is restored to that
// iteration's snapshot (the current one recorded first, see Restore), the loop becomes
// active (with newMax as for a resume), and the thrashing breaker forgets iter's tree and
// every tree recorded after it, since going back there was the person's choice. At a
// colleague's completion checkpoint, going back means "not done": the loop never completes
// by being resumed from an earlier iteration.
func (s *Store) ResumeFrom(ctx context.Context, name string, iter, newMax int) (*State, *RestoreResult, error) {
	_, st, err := s.ReadState(name)
	if err != nil {
		return nil, nil, err
	}
	if st.Status != StatusPaused {
		how := fmt.Sprintf("pause it first: `git loop pause %s`", name)
		if st.Ended() {
			how = fmt.Sprintf("restore its worktree with `git loop restore %s %d` and start a new loop", name, iter)
		}
		return nil, nil, fmt.Errorf("%w: --from continues a paused loop, and loop %q is %s; %s", ErrNotActive, name, st.Status, how)
	}
	res, err := s.Restore(ctx, name, iter)
	if err != nil {
		return nil, nil, err
	}
	h, err := s.OpenHistory(name)
	if err != nil {
		return nil, res, err
	}
	target, err := h.Get(iter)
	if err != nil {
		return nil, res, err
	}
	next, err := s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		if st.Status != StatusPaused {
			return nil, fmt.Errorf("%w: loop %q is %s now", ErrNotActive, name, st.Status)
		}
		n := *st
		if err := raiseLimit(name, &n, newMax); err != nil {
			return nil, err
		}
		var trees []TreeAt
		for _, t := range st.Breakers.Trees {
			if t.Iteration < iter && t.Tree != target.Tree {
				trees = append(trees, t)
			}
		}
		now := s.Now().UTC()
		n.Status, n.Checkpoint, n.UpdatedAt, n.IterationStart = StatusActive, "", now, now
		n.Breakers = Breakers{Trees: trees}
		n.Reason = fmt.Sprintf("resumed from iteration %d", iter)
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: n, snapshot: snap, subject: fmt.Sprintf("loop %s: resumed from iteration %d", name, iter), decision: decisionOf(Resume)}, nil
	})
	return next, res, err
}
