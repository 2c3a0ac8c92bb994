package loop

import (
	"errors"
	"fmt"
	"github.com/git-loop/git-loop/loop/checks"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
)

// Loop statuses.
const (
	StatusActive    = "active"
	StatusPaused    = "paused"
	StatusCompleted = "completed"
	StatusCancelled = "cancelled"
)

// State is a loop's current state, stored as state.json and read on every hook call.
type State struct {
	Name          string `json:"name"`
	Status        string `json:"status"`
	Iteration     int    `json:"iteration"`
	MaxIterations int    `json:"max_iterations"`
	Session       string `json:"session"`
	Worktree      string `json:"worktree"`
	Reason        string `json:"reason"`
	Snapshot      string `json:"snapshot"` // the latest snapshot commit
	Tree          string `json:"tree"`     // its tree
	// StartTree is the tree of the start snapshot, whose checks no iteration may weaken
	// (empty for loops started before it was recorded: iteration 0 has it).
	StartTree string `json:"start_tree,omitempty"`
	// Weakened are the last judged iteration's weakenings of the checks that nothing allows
	// (at most ten; the iteration records them all), and Approved the weakenings a person
	// allowed with `git loop approve`.
	Weakened []checks.Weakening `json:"weakened,omitempty"`
	Approved []Approval         `json:"approved,omitempty"`
	// TestsSeen is the most tests each gate reported running, for the advice when a later
	// iteration runs fewer.
	TestsSeen map[string]TestsSeen `json:"tests_seen,omitempty"`
	// JudgedTree is the tree of the last judged iteration (start or a stop), which
	// irreversible-path rules compare with, so checkpoints in between hide nothing.
	JudgedTree string `json:"judged_tree,omitempty"`
	// Head is the worktree's HEAD when the last iteration was recorded: the commits it gains
	// by the next one get provenance notes (see provenance.go). Empty: the loop's base.
	Head string `json:"head,omitempty"`
	// Remote is the remote a fetched loop came from (see fetched.go); never stored.
	Remote    string    `json:"remote,omitempty"`
	StartedAt time.Time `json:"started_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Breakers  Breakers  `json:"breakers"`
	// Transcript is how far the agent's transcript has been counted for the token budget.
	Transcript *TranscriptMark `json:"transcript,omitempty"`
	// Commands is how far the transcript has been read for must-not commands.
	Commands *TranscriptMark `json:"commands_read,omitempty"`
	// Judged is what the last judged stop remembered of the agent's message (see
	// StopInput.ThisTurn).
	Judged *JudgedMessage `json:"judged_message,omitempty"`
	// Checkpoint is the colleague checkpoint the loop is paused at (plan, iteration,
	// completion), answered by `git loop resume`.
	Checkpoint string `json:"checkpoint,omitempty"`
	// IterationStart is when the current iteration began (the last judged stop, or a
	// resume), LastIteration how long the previous one took, and SessionStart when the agent
	// session began (`resume --fresh`); zero means the loop's start. They time long sessions.
	IterationStart time.Time     `json:"iteration_start,omitzero"`
	LastIteration  time.Duration `json:"last_iteration_ns,omitempty"`
	SessionStart   time.Time     `json:"session_start,omitzero"`
	// MaxDuration and TokenBudget, when set, replace loop.json's limits: a resume that
	// raised them (`git loop resume --max-duration`, `--token-budget`).
	MaxDuration string `json:"max_duration,omitempty"`
	TokenBudget int64  `json:"token_budget,omitempty"`
	// Blocks counts the blocks in a row the agent's own cap counts (see BlockCap).
	Blocks int `json:"blocks,omitempty"`
	// PausedAt is when the loop last became paused (zero while it runs), and Paused the
	// time it spent paused before: the wall-clock limit counts the time it ran.
	PausedAt time.Time     `json:"paused_at,omitzero"`
	Paused   time.Duration `json:"paused_ns,omitempty"`
	// Transient, set on a paused loop, names a cause that passes by itself ("disk full"): the
	// next stop resumes the loop by itself (see transient.go). Empty: a person resumes it.
	Transient string `json:"transient,omitempty"`
	// LastStop is the last judged stop that named itself and the answer it got (see
	// StopInput.StopID).
	LastStop *StopAnswer `json:"last_stop,omitempty"`
	// EvaluatorRuns and EvaluatorCost count the loop's evaluator runs and the dollars they
	// reported, against its evaluator budget (EvaluatorBudget, when a resume raised it).
	EvaluatorRuns   int     `json:"evaluator_runs,omitempty"`
	EvaluatorCost   float64 `json:"evaluator_cost_usd,omitempty"`
	EvaluatorBudget int     `json:"evaluator_budget,omitempty"`
	// Verdicts remembers where the latest evaluator verdicts are recorded, so a stop with the
	// same snapshot tree and message reuses one instead of running the evaluator again.
	Verdicts []VerdictMemo `json:"verdicts,omitempty"`
	// Problems, set by status and list on the state they print and never stored, is what
	// keeps the loop from being enforced now (see Store.Problems).
	Problems []Problem `json:"problems,omitempty"`
}

// timePaused keeps the paused time as s follows prev: it notes when a loop becomes paused
// and, when it goes on, adds the time it was paused. Every state change goes through it
// (Store.update), so no path that pauses or resumes a loop can forget it.
func (s *State) timePaused(prev *State, now time.Time) {
	switch {
	case s.Status == StatusPaused && prev.Status != StatusPaused:
		s.PausedAt = now
	case s.Status != StatusPaused && prev.Status == StatusPaused:
		if !prev.PausedAt.IsZero() && now.After(prev.PausedAt) {
			s.Paused += now.Sub(prev.PausedAt)
		}
		s.PausedAt = time.Time{}
	}
}

// running is how long the loop has run by now: since its start, less the time it was
// paused.
func (s *State) running(now time.Time) time.Duration {
	return now.Sub(s.StartedAt) - s.Paused
}

// Unenforced reports whether a problem lets the loop's stops through unjudged now.
func (s *State) Unenforced() bool {
	for _, p := range s.Problems {
		if p.Unenforced {
			return true
		}
	}
	return false
}

// maxDuration is the loop's wall-clock limit (0 for none): the one a resume set, else
// loop.json's.
func (s *State) maxDuration(cfg *Config) time.Duration {
	d, err := time.ParseDuration(textutil.OrDefaultString(s.MaxDuration, cfg.MaxDuration))
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// tokenBudget is the loop's token budget (0 for none): the one a resume set, else
// loop.json's.
func (s *State) tokenBudget(cfg *Config) int64 {
	if s.TokenBudget > 0 {
		return s.TokenBudget
	}
	return cfg.TokenBudget
}

// TranscriptMark is the token count of a transcript up to an offset, so the next stop only
// reads what was appended since.
type TranscriptMark struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	LastID string `json:"last_id,omitempty"` // message id at the offset (its lines may continue)
	Tokens int64  `json:"tokens"`
	// Running is the transcript's own running token total at the offset, for agents that
	// record one (Codex's token_count events) rather than each answer's usage; for Gemini
	// CLI's chat log, the tokens of the call LastID names (written again, it counts once).
	Running int64 `json:"running,omitempty"`
}

// check reports why st is not a complete state of loop name: every state git-loop writes
// names its loop, its worktree, a known status and its latest snapshot commit. A fetched
// loop may name another: it was pushed under another name (`git loop push R LOCAL:THEIRS`).
func (s *State) check(name string) error {
	switch {
	case s.Name != LocalName(name) && !IsFetched(name):
		return fmt.Errorf("state.json names loop %q", s.Name)
	case s.Worktree == "":
		return errors.New("state.json has no worktree")
	case !knownStatus(s.Status):
		return fmt.Errorf("state.json has unknown status %q", s.Status)
	}
	if h, err := gitstore.ParseHash(s.Snapshot); err != nil || h.IsZero() {
		return fmt.Errorf("state.json has no valid snapshot (%q)", s.Snapshot)
	}
	return nil
}

func knownStatus(status string) bool {
	switch status {
	case StatusActive, StatusPaused, StatusCompleted, StatusCancelled:
		return true
	}
	return false
}

// Ended reports whether the loop can no longer continue.
func (s *State) Ended() bool { return s.Status == StatusCompleted || s.Status == StatusCancelled }

// Iteration is the record of one iteration, stored under iterations/.
type Iteration struct {
	Number   int       `json:"iteration"`
	Kind     string    `json:"kind"` // "start", "checkpoint", "stop" (a hook), "run" (the driver), "adopt" (a fetched loop continued here)
	At       time.Time `json:"at"`
	Snapshot string    `json:"snapshot"`
	Tree     string    `json:"tree"`
	Changed  bool      `json:"changed"` // tree differs from the previous iteration's
	Files    int       `json:"files"`
	Hashed   int       `json:"hashed"`
	Decision string    `json:"decision,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	// Set by judged iterations (hook and driver), not by checkpoints.
	Gates   []GateResult `json:"gates,omitempty"`
	Layer   string       `json:"layer,omitempty"`
	Unmet   []string     `json:"unmet,omitempty"`
	Signals *Signals     `json:"signals,omitempty"`
	// Weakened lists how this iteration's checks are weaker than at start, each with what
	// allowed it, if anything.
	Weakened []checks.Weakening `json:"weakened,omitempty"`
	Message  string             `json:"message,omitempty"` // the agent's last message, bounded
	Tokens   int64              `json:"tokens,omitempty"`
	Session  string             `json:"session,omitempty"`
	Duration time.Duration      `json:"duration_ns,omitempty"` // snapshot, gates and decision
	// NotesErr, set when the iteration was just recorded, says why its provenance notes
	// were not written (the iteration itself was); it is not stored.
	NotesErr error `json:"-"`
}

// Errors of loop operations, mapped to exit codes in one place by the CLI.
var (
	// ErrNoLoop means the named loop does not exist, or no loop is active here.
	ErrNoLoop = errors.New("no such loop")
	// ErrInterrupted: the run was interrupted (Ctrl-C); the loop was paused cleanly.
	ErrInterrupted = errors.New("interrupted")
	// ErrNoRemote means no remote was named and none can be assumed, or the one named is not
	// configured.
	ErrNoRemote = errors.New("no such remote")
	// ErrNotActive: the loop is paused; it must be resumed before it is driven.
	ErrNotActive = errors.New("loop is not active")
	// ErrExists means a loop of that name already exists.
	ErrExists = errors.New("loop already exists")
	// ErrBusy means another loop is active in this worktree.
	ErrBusy = errors.New("this worktree already has a loop")
	// ErrEnded means the loop has completed or been cancelled.
	ErrEnded = errors.New("loop has ended")
	// ErrBadName means the loop name is not a valid ref component.
	ErrBadName = errors.New("invalid loop name")
	// ErrLimit means the loop has used all its iterations.
	ErrLimit = errors.New("limit reached")
	// ErrWorktreeGone means the loop's worktree no longer exists.
	ErrWorktreeGone = errors.New("loop worktree is gone")
	// ErrCorrupt means the loop's stored records cannot be read.
	ErrCorrupt = errors.New("loop record is corrupt")
)

// RefName is the ref holding loop name; for a fetched loop, REMOTE/NAME, its remote-tracking
// ref (see fetched.go).
func RefName(name string) string {
	if remote, local, ok := SplitFetched(name); ok {
		return RemoteRefName(remote, local)
	}
	return "refs/loop/" + name
}

// maxNameLen keeps refs/loop/<name>.lock well inside file name limits.
const maxNameLen = 100

// CheckName validates a loop name: one ref component, not starting with '-'.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name; give a name or leave it out to use the branch's", ErrBadName)
	case name[0] == '-':
		return fmt.Errorf("%w %q: a loop name cannot start with '-'", ErrBadName, name)
	case name == "@" || name == "HEAD":
		return fmt.Errorf("%w %q: reserved by git; choose another name", ErrBadName, name)
	case len(name) > maxNameLen:
		return fmt.Errorf("%w: %d bytes is too long; use at most %d", ErrBadName, len(name), maxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return fmt.Errorf("%w %q: a loop name cannot contain '/'; use '-' instead", ErrBadName, name)
		}
	}
	if err := gitstore.CheckRefName(RefName(name)); err != nil {
		return fmt.Errorf("%w %q: %v", ErrBadName, name, err)
	}
	return nil
}

// DriverEnv is set (to 1) in the environment of an agent `git loop run` drives: a git-loop
// hook the agent has installed then stays out of the way, since the driver judges the run
// itself.
const DriverEnv = "GIT_LOOP_RUN"
