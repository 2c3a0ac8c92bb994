package loop

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
)

// StopInput is what an agent's stop (a hook call or one driver run) tells the loop.
type StopInput struct {
	Session      string // the agent session; "" when the protocol has none
	Message      string // the agent's last message
	MessageKnown bool   // false when the protocol delivers no message
	Tokens       int64  // tokens used so far, 0 when unknown
	Commands     []string
	Kind         string // "stop" or "run"
	Sequential   bool   // run gates one after another
	// CountTokens, when set, advances a transcript mark (nil at first) to the end of the
	// agent's transcript; it is called only for loops with a token budget.
	CountTokens func(prev *TranscriptMark) (*TranscriptMark, error)
	// ReadCommands, when set, returns the commands the agent ran since a mark (nil at first)
	// and the new mark; it is called only for loops with must-not commands.
	ReadCommands func(prev *TranscriptMark) ([]string, *TranscriptMark, error)
	// ThisTurn, when set, reads what the agent said this turn, given what the loop's last
	// judged stop remembered of its message (nil at first), and returns the message (known
	// false when the protocol delivers none) and what to remember of it. It replaces Message
	// and MessageKnown: an agent's log holds earlier turns, and Gemini CLI repeats earlier
	// answers, which must never be judged twice.
	ThisTurn func(prev *JudgedMessage) (msg string, known bool, judged *JudgedMessage)
	// Cap is the agent's own limit on consecutive blocks, if it has one.
	Cap BlockCap
	// StopID, when set, names this stop and no other (Copilot CLI: its session and the
	// stop's timestamp). An agent runs every copy of the hook installed for it (the user's
	// and the project's) on the same stop: the loop judges the stop once, and a copy that
	// comes second gets the answer the first got, with nothing recorded.
	StopID string
	// HookTimeout is how long the agent lets its stop hook run, when it has such a limit
	// and it is known (0: the loop's HookTimeout is assumed); HookTimeoutFrom says where it
	// was read. Began is when the hook started (zero: when Stop does). The gates are cut to
	// end hookRecordMargin before the agent would kill the hook, and recorded as timeouts.
	// Runs of the driver have no such limit: they leave it unset and set no Began.
	HookTimeout     time.Duration
	HookTimeoutFrom string
	Began           time.Time
}

// StopAnswer is what the loop remembers of the last stop that named itself (StopInput.StopID):
// the answer it got, for another copy of the hook judging the same stop.
type StopAnswer struct {
	ID        string `json:"id"`
	Iteration int    `json:"iteration"`
	Decision  string `json:"decision"`
	Reason    string `json:"reason,omitempty"`
	ForAgent  string `json:"for_agent,omitempty"`
	ForUser   string `json:"for_user,omitempty"`
}

// JudgedMessage is what a loop remembers of the last message it judged, so that the next
// stop judges only what the agent said since: the transcript entry it came from, or the
// length and checksum of a protocol's whole response text that later responses repeat.
type JudgedMessage struct {
	ID  string `json:"id,omitempty"`  // the transcript entry (Claude Code's line uuid)
	Len int    `json:"len,omitempty"` // the response text's length in bytes
	Sum string `json:"sum,omitempty"` // the SHA-256 of those bytes, hex
}

// StopResult is the outcome of one judged iteration.
type StopResult struct {
	Verdict   Verdict
	State     *State
	Iteration *Iteration // nil when nothing was recorded (loop not active, other session)
	// NotesErr says why the iteration's provenance notes were not written; the iteration
	// itself is recorded.
	NotesErr error
	// Repeated is set when the stop was judged already (StopInput.StopID): Verdict is the
	// answer it got then, and nothing was recorded now.
	Repeated bool
}

// maxMessage bounds the agent message kept in an iteration record.
const maxMessage = 16 << 10

// Stop judges one attempt of the agent to stop in loop name: snapshot the loop's worktree,
// run the gates, decide, and record the iteration in one state commit. A loop that is not
// active, or bound to another session, is left untouched (Decision allow).
func (s *Store) Stop(ctx context.Context, name string, in StopInput) (*StopResult, error) {
	began := time.Now()
	_, st, err := s.ReadState(name)
	if err != nil {
		return nil, err
	}
	if r := judgedAlready(st, in); r != nil {
		return r, nil
	}
	if r := notOurs(st, in); r != nil {
		return r, nil
	}
	cfg, err := s.Config(name, st)
	if err != nil {
		return nil, err
	}
	wt, err := s.WorktreeOf(name, st)
	if err != nil {
		return nil, err
	}
	snap, err := takeSnapshot(wt)
	if err != nil {
		return nil, err
	}
	snap, held, err := s.holdSnapshot(name, st, wt, snap) // kept from any gc until recorded
	if err != nil {
		return nil, err
	}
	defer held.release()
	touched, err := s.touched(cfg, st, snap.Tree)
	if err != nil {
		return nil, err
	}
	weakened, err := s.weakenings(cfg, st, snap.Tree)
	if err != nil {
		return nil, err
	}
	judged := st.Judged
	if in.ThisTurn != nil {
		in.Message, in.MessageKnown, judged = in.ThisTurn(st.Judged)
	}
	mark, err := countTokens(cfg, st, in)
	if err != nil {
		return nil, err
	}
	commands, cmdMark := in.Commands, (*TranscriptMark)(nil)
	if len(cfg.MustNot) > 0 && in.ReadCommands != nil {
		var ran []string
		if ran, cmdMark, err = in.ReadCommands(st.Commands); err != nil {
			return nil, fmt.Errorf("read the agent's commands for must-not rules: %w", err)
		}
		commands = append(commands, ran...)
	}
	opts := gates.RunOptions{Dir: wt.WorkTree, Sequential: in.Sequential}
	if !in.Began.IsZero() { // a hook, which its agent kills after a timeout
		opts.Deadline = gatesDeadline(in.Began, in.HookTimeout, cfg)
		timeout := in.HookTimeout
		if timeout <= 0 {
			timeout = HookTimeout(cfg.Gates, cfg.judgesEvaluator())
		}
		opts.DeadlineWhy = fmt.Sprintf("the agent gives its stop hook %v", timeout)
		if in.HookTimeoutFrom != "" {
			opts.DeadlineWhy += " in " + in.HookTimeoutFrom
		} else {
			opts.DeadlineWhy += ", assumed from the gates' timeouts"
		}
	}
	defer s.watchGates(cfg)() // what gates of a killed hook and guard left is killed
	results := runGates(ctx, cfg.Gates, opts)
	if ctx.Err() == nil {
		results = append(results, s.runJudges(ctx, judgeRun{name: name, cfg: cfg, st: st, tree: snap.Tree, message: in.Message,
			messageKnown: in.MessageKnown, gates: results, opts: opts, budget: true})...)
	}
	if res, ws := s.judgeTestEdits(ctx, judgeRun{name: name, cfg: cfg, st: st, tree: snap.Tree, message: in.Message,
		messageKnown: in.MessageKnown, gates: results, opts: opts, budget: true}, weakened); res != nil {
		results, weakened = append(results, *res), ws
	}
	if ctx.Err() != nil {
		// Interrupted (Ctrl-C, or the agent killing its hook) while the gates ran: their
		// results say nothing about the work, so nothing is recorded and the loop is as it was.
		return nil, fmt.Errorf("%w while the gates ran (%v); nothing was recorded", ErrInterrupted, context.Cause(ctx))
	}
	var out StopResult
	var recorded *change
	_, err = s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		// Another copy of the hook may have recorded this very stop while the gates ran:
		// compared here, on the state this update would replace, one of them always sees
		// the other's record.
		if r := judgedAlready(st, in); r != nil {
			out = *r
			return nil, nil
		}
		if r := notOurs(st, in); r != nil {
			out = *r
			return nil, nil
		}
		if st.ResumesItself() {
			st = st.resumedByItself(s.Now().UTC())
		}
		tokens := in.Tokens
		if mark != nil {
			tokens = mark.Tokens
		}
		obs := Observation{At: s.Now().UTC(), Tree: snap.Tree.String(), Gates: results, Message: in.Message,
			MessageKnown: in.MessageKnown, Tokens: tokens, Touched: touched, Commands: commands, FreshContext: in.Kind == "run", Cap: in.Cap,
			Weakened: withApprovals(weakened, cfg, st)}
		v := decide(cfg, st, obs)
		next := v.State
		if mark != nil {
			next.Transcript = mark
		}
		if cmdMark != nil {
			next.Commands = cmdMark
		}
		next.Judged = judged
		rememberVerdicts(&next, results)
		next.LastStop = nil
		if in.StopID != "" {
			next.LastStop = &StopAnswer{ID: in.StopID, Iteration: next.Iteration, Decision: v.Decision, Reason: v.Reason,
				ForAgent: v.ForAgent, ForUser: v.ForUser}
		}
		if next.Session == "" {
			next.Session = in.Session // the first stop claims an unbound loop
		}
		prev, _ := gitstore.ParseHash(st.Snapshot)
		prevTree, _ := gitstore.ParseHash(st.Tree)
		snapCommit, changed, err := s.stopSnapshot(held, prev, prevTree, snap.Tree, name, next.Iteration)
		if err != nil {
			return nil, err
		}
		next.Snapshot, next.JudgedTree = snapCommit.String(), obs.Tree
		rec := &Iteration{Number: next.Iteration, Kind: textutil.OrDefaultString(in.Kind, "stop"), At: obs.At, Snapshot: next.Snapshot,
			Tree: obs.Tree, Changed: changed, Files: snap.Files, Hashed: snap.Hashed, Decision: v.Decision, Reason: v.Reason,
			Gates: results, Layer: v.Layer, Unmet: v.Unmet, Signals: &v.Signals, Weakened: recordedWeakenings(obs.Weakened), Message: bounded(in.Message, maxMessage),
			Tokens: tokens, Session: in.Session, Duration: time.Since(began)}
		out = StopResult{Verdict: v, State: &next, Iteration: rec}
		subject := fmt.Sprintf("loop %s: iteration %d: %s", name, next.Iteration, v.Decision)
		if v.Reason != "" {
			subject += " (" + textutil.FirstLine(v.Reason) + ")"
		}
		ch := &change{state: next, iteration: rec, snapshot: snapCommit, subject: subject, decision: v.Decision}
		recorded = ch
		if v.Decision != DecideContinue {
			if ch.files, err = s.reportFiles(cfg, &next, tip, rec); err != nil {
				return nil, err
			}
		}
		return ch, nil
	})
	if err != nil {
		return nil, err
	}
	gitstore.StallAt("recorded") // recorded, not yet answered
	if out.State != nil && out.State.Ended() {
		clearActive(s.Repo, name)
	}
	if out.Iteration != nil {
		out.NotesErr = recorded.notesErr
	}
	return &out, nil
}

// countTokens advances the loop's transcript mark when it has a token budget. A transcript
// that cannot be read is an error: a budget that silently stopped counting would not hold.
func countTokens(cfg *Config, st *State, in StopInput) (*TranscriptMark, error) {
	if st.tokenBudget(cfg) <= 0 || in.CountTokens == nil {
		return nil, nil
	}
	mark, err := in.CountTokens(st.Transcript)
	if err != nil {
		return nil, fmt.Errorf("count tokens for the budget: %w", err)
	}
	return mark, nil
}

// judgedAlready answers a stop the loop has judged already, when another copy of the hook
// ran for it first: the same answer (so an agent that combines its hooks' answers gets one),
// and nothing recorded.
func judgedAlready(st *State, in StopInput) *StopResult {
	a := st.LastStop
	if in.StopID == "" || a == nil || a.ID != in.StopID {
		return nil
	}
	v := Verdict{Decision: a.Decision, Reason: a.Reason, ForAgent: a.ForAgent, ForUser: a.ForUser, State: *st}
	return &StopResult{Verdict: v, State: st, Repeated: true}
}

// notOurs answers for a loop this stop must leave alone: not active (nor paused for a cause
// that passes by itself), or another session's.
func notOurs(st *State, in StopInput) *StopResult {
	if st.Status != StatusActive && !st.ResumesItself() {
		return &StopResult{Verdict: Verdict{Decision: decideAllow, Reason: "loop is " + st.Status}, State: st}
	}
	// A hook's stop that names no session is no more this session's than another's: it is
	// judged only by a loop bound to none. (A driver's run names none and drives any.)
	if st.Session != "" && st.Session != in.Session && (in.Session != "" || in.Kind == "stop") {
		return &StopResult{Verdict: Verdict{Decision: decideAllow, Reason: "loop belongs to another session"}, State: st}
	}
	return nil
}

// Config reads loop.json, from the hot cache when it belongs to this loop.
func (s *Store) Config(name string, st *State) (*Config, error) {
	if cfg, ok := readHotConfig(s.Repo, st); ok {
		return cfg, nil
	}
	tip, err := s.ReadTip(name)
	if err != nil {
		return nil, err
	}
	return s.ReadConfig(name, tip)
}

// touched lists the paths changed since the previous snapshot, when a rule needs them.
func (s *Store) touched(cfg *Config, st *State, tree gitstore.Hash) ([]string, error) {
	if len(cfg.Irreversible) == 0 {
		return nil, nil
	}
	base := st.JudgedTree // checkpoints in between must not hide a change
	if base == "" {
		base = st.Tree
	}
	prev, err := gitstore.ParseHash(base)
	if err != nil {
		return nil, fmt.Errorf("%w: loop %q has no previous tree: %v", ErrCorrupt, st.Name, err)
	}
	return s.Repo.ChangedPaths(prev, tree)
}

// PauseForError records that the loop was paused because git-loop itself failed, so the
// agent can stop and a person sees why; nothing is deleted. A pause for a cause that passes
// by itself (a full disk) is marked transient: the next stop resumes the loop. A loop that is not active is
// left as is. It returns the loop's state afterwards, to say truthfully what happened: paused
// now, or already paused or ended. A loop that does not exist is ErrNoLoop.
func (s *Store) PauseForError(name string, cause error) (*State, error) {
	return s.update(name, func(_ gitstore.Hash, st *State) (*change, error) {
		if st.Status != StatusActive {
			return nil, nil
		}
		next := *st
		next.Status, next.UpdatedAt, next.Reason = StatusPaused, s.Now().UTC(), "paused by an internal error: "+textutil.FirstLine(cause.Error())
		next.Transient = transientCause(cause)
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: paused by an internal error", name), decision: DecidePause}, nil
	})
}

// bounded keeps the last n bytes of s, on a rune boundary.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return "…" + s
}
