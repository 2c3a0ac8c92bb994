package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// History reads a loop's iteration records. Every state commit's tree holds all records so
// far (iterations/<shard>/<n>.json), so the tip's tree is the whole history: reading the
// newest records costs a few tree reads however long the loop ran, and no commit walk.
type History struct {
	s      *Store
	Name   string
	Tip    gitstore.Hash
	State  *State
	Config *Config
	shards []shard // newest first
}

type shard struct {
	first int // the shard's first iteration number
	tree  gitstore.Hash
}

// OpenHistory opens loop name's history at its tip.
func (s *Store) OpenHistory(name string) (*History, error) {
	tip, st, err := s.ReadState(name)
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config(name, st)
	if err != nil {
		return nil, err
	}
	h := &History{s: s, Name: name, Tip: tip, State: st, Config: cfg}
	c, err := s.Repo.ReadCommit(tip)
	if err != nil {
		return nil, fmt.Errorf("read loop %s: %w", name, err)
	}
	dir, err := s.Repo.LookupPath(c.Tree, iterationsDir)
	if errors.Is(err, gitstore.ErrObjectNotFound) {
		return h, nil // no iteration recorded yet
	}
	if err != nil {
		return nil, fmt.Errorf("read loop %s: %w", name, err)
	}
	es, err := s.Repo.ReadTree(dir)
	if err != nil {
		return nil, fmt.Errorf("read loop %s: %w", name, err)
	}
	for _, e := range es {
		n, err := strconv.Atoi(e.Name)
		if err != nil || e.Mode != gitstore.ModeTree {
			continue
		}
		h.shards = append(h.shards, shard{first: n * iterationShard, tree: e.Hash})
	}
	sort.Slice(h.shards, func(i, j int) bool { return h.shards[i].first > h.shards[j].first })
	return h, nil
}

// Each calls fn with every iteration record, newest first, until fn returns an error
// (ErrStop ends the walk without one).
func (h *History) Each(fn func(*Iteration) error) error {
	for _, sh := range h.shards {
		es, err := h.s.Repo.ReadTree(sh.tree)
		if err != nil {
			return fmt.Errorf("read loop %s: %w", h.Name, err)
		}
		for i := len(es) - 1; i >= 0; i-- { // names are zero-padded: tree order is number order
			if !strings.HasSuffix(es[i].Name, ".json") {
				continue
			}
			rec, err := h.record(es[i].Hash)
			if err != nil {
				return err
			}
			if err := fn(rec); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
	}
	return nil
}

// ErrStop ends History.Each early.
var ErrStop = errors.New("stop")

// Get returns iteration n's record.
func (h *History) Get(n int) (*Iteration, error) {
	for _, sh := range h.shards {
		if n < sh.first || n >= sh.first+iterationShard {
			continue
		}
		_, file := splitPath(IterationPath(n))
		blob, err := h.s.Repo.LookupPath(sh.tree, file)
		if err != nil {
			break
		}
		return h.record(blob)
	}
	return nil, fmt.Errorf("%w: loop %s has no iteration %d (it is at %d); see `git loop log %s`", ErrNoIteration, h.Name, n, h.State.Iteration, h.Name)
}

// ErrNoIteration means the loop has no record of the iteration asked for.
var ErrNoIteration = errors.New("no such iteration")

func (h *History) record(blob gitstore.Hash) (*Iteration, error) {
	data, err := h.s.Repo.ReadTyped(gitstore.BlobObject, blob)
	if err != nil {
		return nil, fmt.Errorf("read loop %s: %w", h.Name, err)
	}
	var rec Iteration
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%w: loop %s: iteration record %s: %v", ErrCorrupt, h.Name, blob, err)
	}
	return &rec, nil
}

// ChangedFiles lists the paths that differ between two iterations' snapshot trees; for the
// first iteration (prev nil), between the commit the loop started from and its snapshot.
func (h *History) ChangedFiles(prev, cur *Iteration) ([]string, error) {
	a, err := h.Before(prev)
	if err != nil {
		return nil, err
	}
	b, err := gitstore.ParseHash(cur.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: iteration %d has no tree", ErrCorrupt, cur.Number)
	}
	if a == b {
		return nil, nil
	}
	return h.s.Repo.ChangedPaths(a, b)
}

// Before is the tree an iteration is compared with: prev's snapshot, or the base commit's
// tree (the empty tree in a repository without commits).
func (h *History) Before(prev *Iteration) (gitstore.Hash, error) {
	if prev != nil {
		return gitstore.ParseHash(prev.Tree)
	}
	base, err := gitstore.ParseHash(h.Config.Base)
	if err != nil {
		return gitstore.ZeroHash, nil
	}
	c, err := h.s.Repo.ReadCommit(base)
	if err != nil {
		return gitstore.ZeroHash, fmt.Errorf("read the loop's base commit %s: %w", base, err)
	}
	return c.Tree, nil
}

func splitPath(p string) (dir, file string) {
	i := strings.LastIndexByte(p, '/')
	return p[:i], p[i+1:]
}

// ResolveRecent names the loop a reading command means: name, else the loop active in this
// worktree, else the one that ran here last (a finished loop's history is still read).
func (s *Store) ResolveRecent(name string) (string, error) {
	if name != "" {
		return name, CheckReadName(name)
	}
	if active, _, err := s.FindActive(); err == nil && active != "" {
		return active, nil
	}
	if last := s.lastLoopHere(); last != nil {
		return last.Name, nil
	}
	return s.Resolve("")
}

// iterations reads every iteration record in state commit tree root, oldest first.
func (s *Store) iterations(root gitstore.Hash) ([]Iteration, error) {
	dir, err := s.Repo.LookupPath(root, iterationsDir)
	if err != nil {
		return nil, nil // a loop with no records yet
	}
	shards, err := s.Repo.ReadTree(dir)
	if err != nil {
		return nil, err
	}
	var out []Iteration
	for _, sh := range shards {
		files, err := s.Repo.ReadTree(sh.Hash)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := s.Repo.ReadTyped(gitstore.BlobObject, f.Hash)
			if err != nil {
				return nil, err
			}
			var it Iteration
			if err := json.Unmarshal(data, &it); err != nil {
				return nil, fmt.Errorf("%w: %s/%s/%s: %v", ErrCorrupt, iterationsDir, sh.Name, f.Name, err)
			}
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// ReportFunc renders the report files a loop's final commit carries (report.yaml and
// report.md) from its configuration, its final state and its iterations, oldest first.
// Package loop/report provides the one git-loop uses; the engine does not know the format.
type ReportFunc func(cfg *Config, st *State, iters []Iteration) map[string][]byte

// reportFiles builds the report files for state next of loop cfg, from the records in state
// commit tip plus rec (the iteration being recorded, or nil). A store with no ReportFiles
// writes none.
func (s *Store) reportFiles(cfg *Config, next *State, tip gitstore.Hash, rec *Iteration) (map[string][]byte, error) {
	if s.ReportFiles == nil {
		return nil, nil
	}
	c, err := s.Repo.ReadCommit(tip)
	if err != nil {
		return nil, err
	}
	iters, err := s.iterations(c.Tree)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		iters = append(iters, *rec)
	}
	return s.ReportFiles(cfg, next, iters), nil
}

// GitDir is the git directory of the repository holding the loop.
func (h *History) GitDir() string { return h.s.Repo.GitDir }
