package loop

import (
	"fmt"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// Provenance: the commits a person or the agent makes on the worktree's branch while a loop
// runs are annotated in refs/notes/loop ("loop x, iteration 7, gates 4/5"), so
// `git log --notes=loop` shows where code came from. Each recorded iteration annotates the
// commits HEAD gained since the previous one (its HEAD is kept in state.json). Notes are only
// ever appended to, never overwritten, and the loop's own state never lives in them.

// NotesRef is the notes ref holding provenance notes.
const NotesRef = "refs/notes/loop"

// Bounds of the walk from HEAD: at most maxNewCommits are annotated per iteration, and the
// history of the previous HEAD is read at most maxOldCommits deep to tell new from old.
const (
	maxNewCommits = 256
	maxOldCommits = 4096
)

// provenance is what one recorded iteration knows for its notes.
type provenance struct {
	prev, head gitstore.Hash // HEAD at the previous iteration (or the loop's start), and now
	since      time.Time     // the loop's start: older commits were not made in it
	line       string        // the note
}

// noteLine is the provenance note of iteration rec of loop name: the share of gates that
// passed for a judged iteration ("loop x, iteration 7, gates 4/5"), else its kind
// ("checkpoint"); a stop of a loop without gates says no more than the iteration.
func noteLine(name string, rec *Iteration) string {
	line := fmt.Sprintf("loop %s, iteration %d", name, rec.Number)
	if len(rec.Gates) == 0 {
		if rec.Kind != "stop" && rec.Kind != "run" {
			line += ", " + rec.Kind
		}
		return line
	}
	passed := 0
	for _, g := range rec.Gates {
		if !g.Failed() {
			passed++
		}
	}
	return fmt.Sprintf("%s, gates %d/%d", line, passed, len(rec.Gates))
}

// trackHead runs as update records a new iteration (ch.iteration): it keeps the HEAD of the
// loop's worktree in the new state and returns what annotate is to do once the state commit
// is in: the commits since the previous iteration's HEAD (state.json's, or for a loop's first
// iteration the commit it started from). Nothing when HEAD cannot be read (an unborn branch
// has nothing to annotate).
func (s *Store) trackHead(name string, tip gitstore.Hash, st *State, ch *change) provenance {
	if ch.iteration == nil {
		return provenance{}
	}
	wt, err := s.WorktreeOf(name, &ch.state)
	if err != nil {
		return provenance{}
	}
	head, err := wt.Head()
	if err != nil || head.IsZero() {
		return provenance{}
	}
	ch.state.Head = head.String()
	prev, _ := gitstore.ParseHash(st.Head)
	if st.Head == "" {
		if cfg, err := s.ReadConfig(name, tip); err == nil {
			prev, _ = gitstore.ParseHash(cfg.Base)
		}
	}
	return provenance{prev: prev, head: head, since: st.StartedAt, line: noteLine(name, ch.iteration)}
}

// annotate appends p.line to the note of every commit made since p.prev.
func (s *Store) annotate(p provenance) error {
	if p.head.IsZero() || p.head == p.prev {
		return nil
	}
	commits, err := NewCommits(s.Repo, p.head, p.prev, p.since)
	if err != nil || len(commits) == 0 {
		return err
	}
	lines := make(map[gitstore.Hash]string, len(commits))
	for _, c := range commits {
		lines[c] = p.line
	}
	if err := s.Repo.AppendNotes(NotesRef, lines, s.Repo.Identity(s.Now())); err != nil {
		return fmt.Errorf("provenance notes were not written (the iteration is recorded): %w", err)
	}
	return nil
}

// NewCommits lists the commits reachable from head but not from prev (at most maxNewCommits)
// that were committed at or after since. The walk from head stops at prev; when it reaches
// further (a merge brought older history in, or HEAD moved to another line), the history of
// prev, read up to maxOldCommits deep, tells which commits are old.
func NewCommits(r *gitstore.Repo, head, prev gitstore.Hash, since time.Time) ([]gitstore.Hash, error) {
	seen := map[gitstore.Hash]bool{prev: true}
	var found []gitstore.Hash
	var commits []*gitstore.Commit
	queue := []gitstore.Hash{head}
	seen[head] = true
	beyond := false // the walk met a root or its bound without every line ending at prev
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if len(found) == maxNewCommits {
			beyond = true
			break
		}
		c, err := r.ReadCommit(h)
		if err != nil {
			return nil, fmt.Errorf("provenance: read commit %s: %w", h, err)
		}
		found, commits = append(found, h), append(commits, c)
		if len(c.Parents) == 0 {
			beyond = true
		}
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	var old map[gitstore.Hash]bool
	if beyond && !prev.IsZero() {
		var err error
		if old, err = ancestors(r, prev, maxOldCommits); err != nil {
			return nil, err
		}
	}
	cutoff := since.Truncate(time.Second)
	var out []gitstore.Hash
	for i, h := range found {
		if !old[h] && !commits[i].Committer.When.Before(cutoff) {
			out = append(out, h)
		}
	}
	return out, nil
}

// ancestors is start and its ancestors, breadth first, at most limit of them.
func ancestors(r *gitstore.Repo, start gitstore.Hash, limit int) (map[gitstore.Hash]bool, error) {
	set := map[gitstore.Hash]bool{start: true}
	queue := []gitstore.Hash{start}
	for len(queue) > 0 && len(set) < limit {
		h := queue[0]
		queue = queue[1:]
		c, err := r.ReadCommit(h)
		if err != nil {
			return nil, fmt.Errorf("provenance: read commit %s: %w", h, err)
		}
		for _, p := range c.Parents {
			if !set[p] {
				set[p] = true
				queue = append(queue, p)
			}
		}
	}
	return set, nil
}
