package loop

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
)

// Check runs loop name's gates on its worktree now and records nothing. When every gate
// passes, its evaluator gates are judged too, with the agent's last recorded message (a
// verdict recorded for the same tree and message is reused; runs here do not count against
// the loop's evaluator budget). A fetched loop's gates and evaluator run, with Trust only,
// on this worktree.
func (s *Store) Check(ctx context.Context, name string, sequential bool) ([]GateResult, error) {
	st, cfg, err := s.trustedConfig(name, "check")
	if err != nil {
		return nil, err
	}
	if !cfg.hasChecks() {
		return nil, fmt.Errorf("%w: loop %q has no gates to check; it completes by its promise", ErrConfig, name)
	}
	wt := s.Repo
	if !IsFetched(name) {
		if wt, err = s.WorktreeOf(name, st); err != nil {
			return nil, err
		}
	}
	opts := gates.RunOptions{Dir: wt.WorkTree, Sequential: sequential}
	defer s.watchGates(cfg)() // what gates of a killed hook and guard left is killed
	results := runGates(ctx, cfg.Gates, opts)
	if ctx.Err() != nil {
		return results, nil
	}
	if len(cfg.Judges) == 0 || !Verified(results) {
		return append(results, s.runJudges(ctx, judgeRun{name: name, cfg: cfg, st: st, gates: results, opts: opts})...), nil
	}
	snap, err := takeSnapshot(wt)
	if err != nil {
		return nil, err
	}
	r := judgeRun{name: name, cfg: cfg, st: st, tree: snap.Tree, gates: results, opts: opts}
	if h, err := s.OpenHistory(name); err == nil {
		if rec, err := h.Get(st.Iteration); err == nil && rec.Kind != "start" {
			r.message, r.messageKnown = rec.Message, rec.Message != "" || rec.Signals != nil
		}
	}
	return append(results, s.runJudges(ctx, r)...), nil
}

// trustedConfig reads loop name's state and configuration to run its commands, refusing a
// fetched loop's without Trust (command is the git loop command to run again with --trust).
func (s *Store) trustedConfig(name, command string) (*State, *Config, error) {
	if err := s.checkTrust(name, command); err != nil {
		return nil, nil, err
	}
	_, st, err := s.ReadState(name)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.Config(name, st)
	return st, cfg, err
}

// PrintGates writes one line per gate and the output tail of those that did not pass.
func PrintGates(w io.Writer, results []GateResult, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, results)
	}
	for _, g := range results {
		suffix := summarySuffix(g.Diagnostics)
		if g.Judge != nil {
			suffix = "  (" + g.Judge.Verdict + judgeCost(g.Judge) + ": " + lastLine(textutil.OrDefaultString(g.Judge.Reason, g.Judge.Condition)) + ")"
		}
		fmt.Fprintf(w, "%d %-8s %-7s %8s%s\n", g.Layer, g.Name, g.Status, g.Duration.Round(time.Millisecond), suffix)
	}
	if AllPass(results) && !Verified(results) {
		fmt.Fprintln(w, "\nevery gate was skipped: nothing was verified")
	}
	for _, g := range results {
		if g.Failed() && g.Judge != nil {
			fmt.Fprintf(w, "\n--- %s (%s, evaluator `%s`):\n%s\n", g.Name, g.Judge.Verdict, g.Judge.Evaluator, strings.TrimRight(g.Tail, "\n"))
		} else if g.Failed() {
			fmt.Fprintf(w, "\n--- %s (%s, exit %d):\n%s\n", g.Name, g.Status, g.ExitCode, strings.TrimRight(textutil.LastLines(g.Tail, tailLines), "\n"))
		}
	}
	return nil
}

// Verified reports whether the gates verified the snapshot: none failed, and the command
// gates that ran did not all skip (a skip is "not applicable", which checks nothing). A loop
// without command gates is verified by its other checks.
func Verified(results []GateResult) bool {
	commands, skipped := 0, 0
	for _, g := range results {
		if g.Failed() {
			return false
		}
		if g.Judge == nil {
			commands++
			if g.Status == gates.StatusSkip {
				skipped++
			}
		}
	}
	return commands == 0 || skipped < commands
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

// judgeCost is ", $0.0031" when the evaluator reported its cost, ", cached from iteration 4"
// when its verdict was reused.
func judgeCost(j *JudgeInfo) string {
	switch {
	case j.CachedFrom > 0:
		return fmt.Sprintf(", cached from iteration %d", j.CachedFrom)
	case j.CostUSD > 0:
		return fmt.Sprintf(", $%.4f", j.CostUSD)
	}
	return ""
}
