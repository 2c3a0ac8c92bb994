package loop

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
)

// Raise is what a resume may raise besides the iteration limit: the wall-clock limit and the
// token budget, recorded in state.json over loop.json's.
type Raise struct {
	MaxDuration string // a duration such as 4h; "" keeps the loop's
	TokenBudget int64  // 0 keeps the loop's
	// EvaluatorBudget is the number of evaluator runs the loop may make in all; 0 keeps the
	// loop's.
	EvaluatorBudget int
}

// RaiseLimits records a paused loop's new wall-clock limit or token budget, so that a resume
// after such a limit goes on instead of pausing again at the next stop.
func (s *Store) RaiseLimits(name string, r Raise) (*State, error) {
	if r.MaxDuration == "" && r.TokenBudget == 0 && r.EvaluatorBudget == 0 {
		return nil, nil
	}
	if r.EvaluatorBudget < 0 {
		return nil, fmt.Errorf("%w: --evaluator-budget %d: want a number of evaluator runs ≥ 1", ErrConfig, r.EvaluatorBudget)
	}
	if r.MaxDuration != "" {
		if d, err := time.ParseDuration(r.MaxDuration); err != nil || d <= 0 {
			return nil, fmt.Errorf("%w: --max-duration %q: want a duration such as 4h or 90m", ErrConfig, r.MaxDuration)
		}
	}
	if r.TokenBudget < 0 {
		return nil, fmt.Errorf("%w: --token-budget %d: want a number of tokens ≥ 1", ErrConfig, r.TokenBudget)
	}
	return s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		if st.Ended() {
			return nil, fmt.Errorf("%w: loop %q is %s; start a new loop", ErrEnded, name, st.Status)
		}
		next := *st
		next.UpdatedAt = s.Now().UTC()
		if r.MaxDuration != "" {
			next.MaxDuration = r.MaxDuration
		}
		if r.TokenBudget > 0 {
			next.TokenBudget = r.TokenBudget
		}
		if r.EvaluatorBudget > 0 {
			next.EvaluatorBudget = r.EvaluatorBudget
		}
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: limits raised by user (%s)", name, r)}, nil
	})
}

// String names what r raises.
func (r Raise) String() string {
	var parts []string
	if r.MaxDuration != "" {
		parts = append(parts, "wall clock "+r.MaxDuration)
	}
	if r.TokenBudget > 0 {
		parts = append(parts, fmt.Sprintf("token budget %d", r.TokenBudget))
	}
	if r.EvaluatorBudget > 0 {
		parts = append(parts, fmt.Sprintf("evaluator budget %d runs", r.EvaluatorBudget))
	}
	return strings.Join(parts, ", ")
}

// checkBudgets refuses to resume a loop whose wall clock, token budget or evaluator budget
// (runs or cost) is spent: its next stop would pause it again. The error names the resume
// that raises the limit, or says that none can.
func checkBudgets(cfg *Config, st *State) error {
	paused := st.PausedAt
	if paused.IsZero() { // paused before git-loop noted when
		paused = st.UpdatedAt
	}
	if ran := st.running(paused); st.maxDuration(cfg) > 0 && ran > st.maxDuration(cfg) { // time paused does not count
		d := st.maxDuration(cfg)
		return fmt.Errorf("%w: loop %q has run %s of its %s wall-clock limit; resume with a longer one: `git loop resume %s --max-duration %s`",
			ErrLimit, st.Name, shortDuration(ran), shortDuration(d), st.Name, shortDuration(longerLimit(ran)))
	}
	if ev := cfg.Evaluator; ev != nil && len(cfg.Judges) > 0 && st.EvaluatorRuns >= ev.budget(st) {
		return fmt.Errorf("%w: loop %q has used %d of its %d evaluator runs; resume with a higher budget: `git loop resume %s --evaluator-budget %d`",
			ErrLimit, st.Name, st.EvaluatorRuns, ev.budget(st), st.Name, 2*ev.budget(st))
	}
	if ev := cfg.Evaluator; ev != nil && len(cfg.Judges) > 0 && ev.CostBudget > 0 && st.EvaluatorCost >= ev.CostBudget {
		return fmt.Errorf("%w: loop %q's evaluator has cost $%.4f of its $%.2f budget, which a resume cannot raise (its next judged stop would pause again); "+
			"start a new loop with a higher loop.evaluatorCostBudget", ErrLimit, st.Name, st.EvaluatorCost, ev.CostBudget)
	}
	if b := st.tokenBudget(cfg); b > 0 && st.Transcript != nil && st.Transcript.Tokens > b {
		return fmt.Errorf("%w: loop %q has used %d of its %d tokens; resume with a higher budget: `git loop resume %s --token-budget %d`",
			ErrLimit, st.Name, st.Transcript.Tokens, b, st.Name, max(2*b, st.Transcript.Tokens+b))
	}
	return nil
}

// resumeInReason finds the resume a pause's reason names (at a limit, the one that raises it).
var resumeInReason = textutil.LazyRegexp("`(git loop resume [^`]+)`")

// ResumeCommand is the command that goes on from st's pause: the first resume its reason names (at
// a limit, the one raising it; at an iteration limit reached another way, one with a higher
// limit), else `git loop resume NAME`.
func ResumeCommand(st *State) string {
	if m := resumeInReason().FindStringSubmatch(st.Reason); m != nil {
		return m[1]
	}
	if st.MaxIterations > 0 && st.Iteration >= st.MaxIterations { // a plain resume is refused
		return fmt.Sprintf("git loop resume %s --max-iterations %d", st.Name, st.MaxIterations*2)
	}
	return "git loop resume " + st.Name
}
