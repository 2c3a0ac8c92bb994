package report

import (
	"fmt"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/diag"
)

// StepDiff is what an iteration changed in the worktree since the iteration before.
type StepDiff struct {
	Added   int             `json:"added"`
	Deleted int             `json:"deleted"`
	Changed int             `json:"files_changed"`
	Files   []loop.FileStat `json:"files"`          // at most maxStepFiles of them
	More    int             `json:"more,omitempty"` // files changed beyond those listed
}

// maxStepFiles bounds the files a report lists per iteration (the counts cover them all).
const maxStepFiles = 100

// maxStepMessage bounds the agent's message a report keeps per iteration, in runes.
const maxStepMessage = 1 << 10

// newStep is iteration it in the timeline; prevAt is when the iteration before it was
// recorded (or the loop started).
func newStep(it loop.Iteration, prevAt time.Time) Step {
	s := Step{Iteration: it.Number, Kind: it.Kind, At: it.At, GatesMS: it.Duration.Milliseconds(), Decision: it.Decision,
		Reason: it.Reason, Layer: it.Layer, Changed: it.Changed, Message: textutil.Clip(it.Message, maxStepMessage)}
	if !it.At.IsZero() && !prevAt.IsZero() && it.At.After(prevAt) {
		s.ElapsedMS = it.At.Sub(prevAt).Milliseconds()
	}
	for _, g := range it.Gates {
		if s.Gates == nil {
			s.Gates = map[string]string{}
		}
		s.Gates[g.Name] = g.Status
		if d := g.Diagnostics; d != nil {
			if d.Passed != nil {
				diag.AddCount(&s.TestsPassed, *d.Passed)
			}
			if d.Failed != nil {
				diag.AddCount(&s.TestsFailed, *d.Failed)
			}
			if d.Coverage != nil {
				c := *d.Coverage
				s.Coverage = &c
			}
		}
	}
	return s
}

// FromHistory builds the loop's report from its whole history, with each iteration's diffstat
// read from the snapshots.
func FromHistory(h *loop.History) (Report, error) {
	iters := make([]loop.Iteration, 0, h.State.Iteration) // sized once: a long loop's records are many
	err := h.Each(func(rec *loop.Iteration) error {
		iters = append(iters, *rec)
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	for i, j := 0, len(iters)-1; i < j; i, j = i+1, j-1 {
		iters[i], iters[j] = iters[j], iters[i]
	}
	r := buildReport(h.Config, h.State, iters)
	for i := range iters {
		var prev *loop.Iteration
		if i > 0 {
			prev = &iters[i-1]
		}
		d, err := stepDiff(h, prev, &iters[i])
		if err != nil {
			return Report{}, err
		}
		r.Timeline[i].Diffstat = d
	}
	return r, nil
}

// stepDiff is what cur changed since prev (nil: since the commit the loop started from).
func stepDiff(h *loop.History, prev, cur *loop.Iteration) (*StepDiff, error) {
	a, err := h.Before(prev)
	if err != nil {
		return nil, err
	}
	b, err := gitstore.ParseHash(cur.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: loop %s: iteration %d has no tree", loop.ErrCorrupt, h.Name, cur.Number)
	}
	d := &StepDiff{Files: []loop.FileStat{}}
	if a == b {
		return d, nil
	}
	stats, err := h.Diffstat(a, b)
	if err != nil {
		return nil, fmt.Errorf("read loop %s: iteration %d's changes: %w", h.Name, cur.Number, err)
	}
	d.Changed = len(stats)
	for i, s := range stats {
		d.Added, d.Deleted = d.Added+s.Added, d.Deleted+s.Deleted
		if i < maxStepFiles {
			d.Files = append(d.Files, s)
		}
	}
	d.More = max(0, len(stats)-maxStepFiles)
	return d, nil
}
