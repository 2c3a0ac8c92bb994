package loop

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-loop/git-loop/loop/internal/textutil"
)

// Check runs loop name's gates on its worktree now and records nothing. A fetched loop's
// gates run, with Trust only, on this worktree.
func (s *Store) Check(ctx context.Context, name string, sequential bool) ([]GateResult, error) {
	if IsFetched(name) && !s.Trust {
		return nil, untrusted(name, "check")
	}
	_, st, err := s.ReadState(name)
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config(name, st)
	if err != nil {
		return nil, err
	}
	if len(cfg.Gates) == 0 {
		return nil, fmt.Errorf("%w: loop %q has no gates to check; it completes by its promise", ErrConfig, name)
	}
	wt := s.Repo
	if !IsFetched(name) {
		if wt, err = s.WorktreeOf(name, st); err != nil {
			return nil, err
		}
	}
	return runGates(ctx, cfg.Gates, RunOptions{Dir: wt.WorkTree, Sequential: sequential}), nil
}

// PrintGates writes one line per gate and the output tail of those that did not pass.
func PrintGates(w io.Writer, results []GateResult, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, results)
	}
	for _, g := range results {
		fmt.Fprintf(w, "%d %-8s %-7s %8s%s\n", g.Layer, g.Name, g.Status, g.Duration.Round(time.Millisecond), summarySuffix(g.Diagnostics))
	}
	for _, g := range results {
		if g.Failed() {
			fmt.Fprintf(w, "\n--- %s (%s, exit %d):\n%s\n", g.Name, g.Status, g.ExitCode, strings.TrimRight(textutil.LastLines(g.Tail, tailLines), "\n"))
		}
	}
	return nil
}

// AllPass reports whether no gate failed (skips count as passing).
func AllPass(results []GateResult) bool {
	for _, g := range results {
		if g.Failed() {
			return false
		}
	}
	return true
}
