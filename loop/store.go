package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// Store reads and writes loops as commit chains on refs/loop/<name>.
type Store struct {
	Repo *gitstore.Repo
	// Now is the clock; tests may fix it.
	Now func() time.Time
	// Trust lets commands run a fetched loop's stored gate commands (--trust).
	Trust bool
	// ReportFiles renders a completed or stopped loop's report into its final commit; nil
	// records none (see ReportFunc).
	ReportFiles ReportFunc
}

// NewStore returns a store on r using the wall clock.
func NewStore(r *gitstore.Repo) *Store { return &Store{Repo: r, Now: time.Now} }

// OpenStoreFromEnv opens the repository of a person's command (see gitstore.OpenFromEnv:
// $GIT_DIR and $GIT_WORK_TREE when set, else the one containing dir) and returns its store.
func OpenStoreFromEnv(dir string) (*Store, error) {
	r, err := gitstore.OpenFromEnv(dir)
	if err != nil {
		return nil, err
	}
	return NewStore(r), nil
}

// OpenStore opens the repository containing dir (see gitstore.Open) and returns its store.
func OpenStore(dir string) (*Store, error) {
	r, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	return NewStore(r), nil
}

// Errors of the repository layer that callers of loop map to exit codes, re-exported so
// they need not import gitstore (dependencies point main → hooks → loop → gitstore).
var (
	// ErrNotRepo means no git repository contains the directory.
	ErrNotRepo = gitstore.ErrNotRepo
	// ErrBare means the repository has no working tree.
	ErrBare = gitstore.ErrBare
	// ErrReftable means the repository stores refs in reftable format.
	ErrReftable = gitstore.ErrReftable
	// ErrSHA256 means the repository uses SHA-256 object names.
	ErrSHA256 = gitstore.ErrSHA256
	// ErrFormat means an unknown repository format version or extension.
	ErrFormat = gitstore.ErrFormat
	// ErrRefLocked means a ref's lock file stayed held; the error names it.
	ErrRefLocked = gitstore.ErrRefLocked
)

// Files in a state commit's tree.
const (
	configFile     = "loop.json"
	StateFile      = "state.json"
	iterationsDir  = "iterations"
	maxRefRetries  = 100
	iterationShard = 100
)

// IterationPath is where iteration n's record lives in a state commit's tree: sharded by
// hundreds so a long loop does not rewrite one huge tree per iteration.
func IterationPath(n int) string {
	return fmt.Sprintf("%s/%04d/%06d.json", iterationsDir, n/iterationShard, n)
}

// ReadState returns the tip of loop name and its state, from the hot-state cache when it
// names the current tip, else from the tip commit (refreshing the cache). It is for reading;
// a change builds on the tip commit itself (see update).
func (s *Store) ReadState(name string) (gitstore.Hash, *State, error) {
	tip, err := s.ReadTip(name)
	if err != nil {
		return tip, nil, err
	}
	st, err := s.cachedStateAt(name, tip)
	return tip, st, err
}

// ReadTip returns the commit refs/loop/<name> points to.
func (s *Store) ReadTip(name string) (gitstore.Hash, error) {
	tip, err := s.Repo.ReadRef(RefName(name))
	if errors.Is(err, gitstore.ErrRefNotFound) {
		if remote, _, ok := SplitFetched(name); ok {
			if !s.Repo.Config.Has("remote", remote, "url") {
				return tip, fmt.Errorf("%w %q: %q names a loop fetched from remote %s, and there is no such remote (see `git remote`); local loop names hold no \"/\"", ErrNoRemote, remote, name, remote)
			}
			return tip, fmt.Errorf("%w %q: fetch the loops of %s with `git loop fetch %s`, then list them with `git loop list --all`", ErrNoLoop, name, remote, remote)
		}
		return tip, fmt.Errorf("%w %q: list loops with `git loop list --all`", ErrNoLoop, name)
	}
	if isBroken(err) {
		return tip, fmt.Errorf("%w: loop %q: its ref file %s is broken (%s); %s", ErrCorrupt, name,
			s.Repo.RefPath(RefName(name)), gitstore.BrokenRefReason(err), s.restoreAdvice(name, gitstore.ZeroHash, true))
	}
	if err != nil {
		return tip, fmt.Errorf("read loop %q: %w", name, err)
	}
	return tip, nil
}

// cachedStateAt is the state in state commit tip, from the hot-state cache when it holds
// tip's state, else from the commit (refreshing the cache).
func (s *Store) cachedStateAt(name string, tip gitstore.Hash) (*State, error) {
	if st, ok := readHotState(s.Repo, name, tip); ok {
		return st, nil
	}
	st, err := s.stateAt(name, tip)
	if err != nil {
		return nil, err
	}
	writeHotState(s.Repo, name, tip, st, nil)
	return st, nil
}

// stateAt reads and checks state.json of state commit tip.
func (s *Store) stateAt(name string, tip gitstore.Hash) (*State, error) {
	st, err := s.loadState(name, tip)
	if err != nil {
		return nil, fmt.Errorf("%w: loop %q at %s: %v; %s", ErrCorrupt, name, tip, err, s.restoreAdvice(name, tip, false))
	}
	return st, nil
}

// loadState is stateAt without the error's context: why tip holds no state of loop name.
func (s *Store) loadState(name string, tip gitstore.Hash) (*State, error) {
	var st State
	if err := s.readJSON(tip, StateFile, &st); err != nil {
		return nil, err
	}
	if err := st.check(name); err != nil {
		return nil, err
	}
	if remote, _, ok := SplitFetched(name); ok {
		st.Name, st.Remote = name, remote
	}
	return &st, nil
}

// ReadConfig returns the configuration stored in state commit tip.
func (s *Store) ReadConfig(name string, tip gitstore.Hash) (*Config, error) {
	var c Config
	if err := s.readJSON(tip, configFile, &c); err != nil {
		return nil, fmt.Errorf("%w: loop %q at %s: %v", ErrCorrupt, name, tip, err)
	}
	return &c, nil
}

func (s *Store) readJSON(commit gitstore.Hash, path string, v any) error {
	c, err := s.Repo.ReadCommit(commit)
	if err != nil {
		return err
	}
	data, err := s.Repo.ReadPath(c.Tree, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

// change is one new state commit.
type change struct {
	state     State
	config    *Config       // set only by start; later commits keep the parent's loop.json
	iteration *Iteration    // the record to add, if any
	snapshot  gitstore.Hash // second parent: the snapshot the state describes
	subject   string
	decision  string
	files     map[string][]byte // extra files at the tree's top (report.yaml, report.md)
	notesErr  error             // set by update: why provenance notes were not written
}

// commitChange writes the state commit for ch on top of parent (ZeroHash for none) and
// returns it. Its parents are parent, then ch.snapshot. The commit and the objects under it
// that are new are written as one pack (gitstore's InPack), stored before it returns.
func (s *Store) commitChange(parent gitstore.Hash, ch *change) (commit gitstore.Hash, err error) {
	err = s.Repo.InPack(func() error {
		tree, err := s.stateTree(parent, ch)
		if err != nil {
			return err
		}
		var parents []gitstore.Hash
		if !parent.IsZero() {
			parents = append(parents, parent)
		}
		if !ch.snapshot.IsZero() {
			parents = append(parents, ch.snapshot)
		}
		commit, err = s.writeCommit(tree, parents, ch.subject, ch.state.Name, ch.state.Iteration, ch.decision)
		return err
	})
	return commit, err
}

func (s *Store) writeCommit(tree gitstore.Hash, parents []gitstore.Hash, subject, name string, iter int, decision string) (gitstore.Hash, error) {
	sig := s.Repo.Identity(s.Now())
	msg := fmt.Sprintf("%s\n\nLoop-Name: %s\nLoop-Iteration: %d\n", subject, name, iter)
	if decision != "" {
		msg += "Loop-Decision: " + decision + "\n"
	}
	c := &gitstore.Commit{Tree: tree, Parents: parents, Author: sig, Committer: sig, Message: msg}
	h, err := s.Repo.WriteCommit(c)
	if err != nil {
		return h, fmt.Errorf("write loop %q commit: %w", name, err)
	}
	return h, nil
}

// update applies fn to the current tip of loop name and moves the ref to the result with
// git's lock protocol, starting again from the fresh tip when another writer got there first.
// fn gets the state read from the tip commit itself, never from the hot-state cache: a new
// commit must not copy whatever a stale or damaged cache file says.
func (s *Store) update(name string, fn func(tip gitstore.Hash, st *State) (*change, error)) (*State, error) {
	if IsFetched(name) {
		return nil, readOnly(name)
	}
	for attempt := 0; ; attempt++ {
		tip, err := s.ReadTip(name)
		if err != nil {
			return nil, err
		}
		st, err := s.stateAt(name, tip)
		if err != nil {
			return nil, err
		}
		ch, err := fn(tip, st)
		if err != nil || ch == nil {
			return st, err
		}
		ch.state.timePaused(st, s.Now().UTC())
		ch.state.keepTransient(st)
		prov := s.trackHead(name, tip, st, ch)
		commit, err := s.commitChange(tip, ch)
		if err != nil {
			return nil, err
		}
		// A new snapshot's commit may have been pruned since it was written (a concurrent
		// git gc --prune=now): a state must never name a missing object, so fn writes it
		// again. A held snapshot (see holdSnapshot) is not pruned.
		if newSnap := !ch.snapshot.IsZero() && ch.snapshot.String() != st.Snapshot; newSnap && !s.snapshotStored(ch.snapshot) {
			if attempt < maxRefRetries {
				continue
			}
			return nil, fmt.Errorf("update loop %q: snapshot %s: %w", name, ch.snapshot, ErrSnapshotLost)
		}
		err = s.Repo.UpdateRef(RefName(name), commit, tip, ch.subject)
		// Another writer moved the ref: start again from its tip. A lock still held after
		// gitstore's own wait is reported, not retried (it is likely stale).
		if errors.Is(err, gitstore.ErrRefChanged) && attempt < maxRefRetries {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("update loop %q: %w", name, err)
		}
		writeHotState(s.Repo, name, commit, &ch.state, nil)
		s.clearUnrecorded(name) // a change is recorded: the loop is as its ref says
		ch.notesErr = s.annotate(prov)
		s.Repo.SweepTempObjects() // what killed writers left, now and then
		s.Repo.AutoMaintenance()  // git's gc --auto, as after git commit; detached, not waited for
		return &ch.state, nil
	}
}

// snapshotCommit returns the snapshot commit for tree: the previous one when the tree is
// unchanged, else a new commit whose parent is the previous snapshot.
func (s *Store) snapshotCommit(prev gitstore.Hash, prevTree, tree gitstore.Hash, name string, iter int) (gitstore.Hash, bool, error) {
	if !prev.IsZero() && prevTree == tree {
		return prev, false, nil
	}
	var parents []gitstore.Hash
	if !prev.IsZero() {
		parents = append(parents, prev)
	}
	subject := fmt.Sprintf("loop %s: snapshot of iteration %d", name, iter)
	h, err := s.writeCommit(tree, parents, subject, name, iter, "")
	return h, true, err
}

// WorktreeTop returns the top directory of the worktree containing dir, or the one GIT_DIR
// and GIT_WORK_TREE name (see gitstore.OpenFromEnv).
func WorktreeTop(dir string) (string, error) {
	s, err := OpenStoreFromEnv(dir)
	if err != nil {
		return "", err
	}
	return s.Repo.WorkTree, nil
}
