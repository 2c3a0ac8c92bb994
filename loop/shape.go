package loop

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/spec"
	"github.com/git-loop/git-loop/snapshots"
)

// shapeAuto runs a loop in the shape its spec scores (loop.shape and --shape default to it).
const shapeAuto = "auto"

// Checkpoints at which a colleague-shaped loop pauses for a person (State.Checkpoint).
const (
	checkpointPlan       = "plan"       // after the first iteration: the agent's plan
	checkpointIteration  = "iteration"  // after each later iteration
	checkpointCompletion = "completion" // before completing: a person confirms
)

// scoreLoop scores a loop's spec: its prompt, with the loop's own terms as evidence — a
// gate is a measurable success check, and a promise or gates-only exit an explicit end.
func scoreLoop(cfg *Config) spec.SpecScore {
	s := spec.ScoreSpec(cfg.Prompt)
	var gates, ends []string
	for _, g := range cfg.Gates {
		gates = append(gates, fmt.Sprintf("gate %q (%s)", g.Name, textutil.Clip(g.Run, 40)))
	}
	for _, p := range cfg.Promises {
		ends = append(ends, fmt.Sprintf("promise %q", p))
	}
	if len(ends) == 0 && len(cfg.Gates) > 0 && cfg.Exit == exitGates {
		ends = append(ends, "exit when every gate passes")
	}
	for i := range s.Dimensions {
		d := &s.Dimensions[i]
		switch {
		case d.Name == spec.DimSuccess && len(gates) > 0:
			d.Found, d.Score, d.Missing = append(d.Found, gates...), 2, ""
		case d.Name == spec.DimDone && len(ends) > 0:
			d.Found, d.Score, d.Missing = append(d.Found, ends...), 2, ""
		}
	}
	s.Sum()
	return s
}

// shapeLoop scores a new loop's spec and records it as advice, then decides how the loop
// runs: unattended (tool), unless the person asked for checkpoints (colleague). The score
// never refuses a loop nor pauses one: a person who starts a loop has asked for it to run.
// auto, the old default that followed the score, now means the default.
func shapeLoop(cfg *Config, asked string) error {
	score := scoreLoop(cfg)
	cfg.Spec = &score
	switch asked {
	case spec.ShapeColleague:
		cfg.Shape = spec.ShapeColleague
	case "", shapeAuto, spec.ShapeTool:
		cfg.Shape = spec.ShapeTool
	default:
		return fmt.Errorf("%w: shape %q (--shape or loop.shape): use tool (unattended, the default) or colleague (checkpoints for a person)", ErrConfig, asked)
	}
	return nil
}

// missingHints joins what the spec's weakest dimensions should add: the absent (zero-scored)
// ones, else the partial ones.
func missingHints(s spec.SpecScore) string {
	for _, want := range []int{0, 1} {
		var out []string
		for _, d := range s.Dimensions {
			if d.Score == want && d.Missing != "" {
				out = append(out, d.Name+" ("+firstClause(d.Missing)+")")
			}
		}
		if len(out) > 0 {
			return strings.Join(out, "; ")
		}
	}
	return "nothing more"
}

func firstClause(s string) string {
	c, _, _ := strings.Cut(s, ";")
	return c
}

// checkpoint turns a verdict into a colleague checkpoint: the loop pauses for a person to
// confirm with `git loop resume`. The agent's message keeps what it would have been told,
// and a long-session warning, if any, goes to the agent and the person.
func (v Verdict) checkpoint(cfg *Config, next State, kind, warning string) Verdict {
	var reason, agent string
	switch kind {
	case checkpointCompletion:
		reason = fmt.Sprintf("checkpoint before completion (%s): confirm with `git loop resume %s`, or send the agent back with `git loop resume %s --not-done`", v.Reason, cfg.Name, cfg.Name)
		agent = "Every condition for completion holds; the loop pauses before completing for a person to confirm. Stop here and summarise what you did and how it was verified."
	case checkpointPlan:
		reason = fmt.Sprintf("checkpoint after the plan (iteration %d; %s): a person reviews, then `git loop resume %s` to go on", next.Iteration, v.Reason, cfg.Name)
		agent = "The loop pauses after your first iteration for a person to review your plan. Stop here and set out your plan and what is left; after `git loop resume` you go on with:\n\n" + v.ForAgent
	default:
		reason = fmt.Sprintf("checkpoint after iteration %d (%s): a person reviews, then `git loop resume %s` to go on", next.Iteration, v.Reason, cfg.Name)
		agent = "The loop pauses after each iteration for a person to review. Stop here and summarise what changed and what is left; after `git loop resume` you go on with:\n\n" + v.ForAgent
	}
	p := v.pause(cfg, next, reason)
	p.State.Checkpoint = kind
	p.ForAgent = agent
	p.withWarning(next, warning)
	return p
}

// resumeAtCheckpoint is a person's answer to a colleague checkpoint: at completion the loop
// completes (the person confirmed what the gates verified on the snapshot it records),
// unless notDone sends the agent back; elsewhere it goes on. The breakers keep counting: a
// checkpoint is not a trip. A confirmation of a worktree that changed since the gates
// passed goes through confirmCompletion instead, which judges it again.
func (s *Store) resumeAtCheckpoint(name string, tip gitstore.Hash, st *State, notDone bool, newMax int) (*change, error) {
	next := *st
	now := s.Now().UTC()
	next.Checkpoint, next.UpdatedAt, next.IterationStart = "", now, now
	snap, _ := gitstore.ParseHash(st.Snapshot)
	if st.Checkpoint == checkpointCompletion && !notDone {
		if judged := judgedTree(st); st.Tree != judged {
			return nil, fmt.Errorf("%w: loop %q: the worktree changed since its gates passed (tree %s, judged %s); run `git loop resume %s` again to judge it, or send the agent back with `git loop resume %s --not-done`",
				ErrBusy, name, textutil.Short(st.Tree), textutil.Short(judged), name, name)
		}
		next.Status, next.Reason = StatusCompleted, "completion confirmed by user at iteration "+fmt.Sprint(st.Iteration)
		ch := &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: %s", name, next.Reason), decision: DecideComplete}
		cfg, err := s.ReadConfig(name, tip)
		if err != nil {
			return nil, err
		}
		ch.files, err = s.reportFiles(cfg, &next, tip, nil)
		return ch, err
	}
	next.Status, next.Reason = StatusActive, "resumed by user at the "+st.Checkpoint+" checkpoint"
	if st.Checkpoint == checkpointCompletion {
		next.Reason = "completion not confirmed: resumed by user"
	}
	if err := raiseLimit(name, &next, newMax); err != nil {
		return nil, err
	}
	return &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: %s", name, next.Reason)}, nil
}

// judgedTree is the tree st's gates were last judged on (loops recorded before JudgedTree
// existed judged every recorded tree).
func judgedTree(st *State) string {
	return textutil.OrDefaultString(st.JudgedTree, st.Tree)
}

// kindConfirm is the kind of the iteration that judges the worktree again when a person
// confirms a colleague's completion after it changed.
const kindConfirm = "confirm"

// confirmCompletion is a person's yes at a colleague's completion checkpoint. The gates
// passed on the tree judged at the checkpoint; when the loop's worktree is no longer that
// tree (edited or checkpointed since), it is snapshotted and the gates run on it again,
// recorded as a judged iteration of kind confirm (even past the iteration limit: a person
// asked for it). The loop completes only if no gate fails, the gates verified something (not
// all skipped) and no check is weaker than at the loop's start; a blocked gate pauses it, and a
// failing one sends it back to active (paused when no iteration is left) with the gate's
// output in the reason, for the agent to meet at its next stop. A worktree that is gone
// leaves the recorded snapshot to confirm, when that is the judged tree.
func (s *Store) confirmCompletion(ctx context.Context, name string, st *State, newMax int) (*State, error) {
	cfg, err := s.Config(name, st)
	if err != nil {
		return nil, err
	}
	judged := judgedTree(st)
	wt, wtErr := s.WorktreeOf(name, st)
	if wtErr != nil && st.Tree != judged {
		return nil, wtErr
	}
	var snap *snapshots.Result
	if wtErr == nil {
		if snap, err = takeSnapshot(wt); err != nil {
			return nil, err
		}
	}
	unchanged := snap == nil || snap.Tree.String() == judged && st.Tree == judged
	var results []GateResult
	if !unchanged {
		results = runGates(ctx, cfg.Gates, gates.RunOptions{Dir: wt.WorkTree})
		if ctx.Err() != nil {
			return nil, fmt.Errorf("confirm the completion of loop %q: interrupted while its gates ran; nothing was recorded, confirm again with `git loop resume %s`", name, name)
		}
	}
	return s.update(name, func(tip gitstore.Hash, cur *State) (*change, error) {
		if cur.Status != StatusPaused || cur.Checkpoint != checkpointCompletion || cur.Snapshot != st.Snapshot || cur.Iteration != st.Iteration {
			return nil, fmt.Errorf("%w: loop %q changed while its completion was being confirmed (now %s: %s); see `git loop status %s`, then resume again", ErrBusy, name, cur.Status, cur.Reason, name)
		}
		if unchanged {
			return s.resumeAtCheckpoint(name, tip, cur, false, newMax)
		}
		return s.confirmJudged(cfg, tip, cur, snap, results, newMax)
	})
}

// confirmJudged records the iteration that judged a changed worktree at a completion
// checkpoint (see confirmCompletion) and decides from its gates.
func (s *Store) confirmJudged(cfg *Config, tip gitstore.Hash, st *State, snap *snapshots.Result, results []GateResult, newMax int) (*change, error) {
	name := st.Name
	next := *st
	now := s.Now().UTC()
	next.Iteration++
	next.Checkpoint, next.UpdatedAt, next.IterationStart = "", now, now
	if newMax > 0 {
		if newMax <= next.Iteration {
			return nil, fmt.Errorf("%w: --max-iterations %d: loop %q is at iteration %d already; give a higher limit", ErrConfig, newMax, name, next.Iteration)
		}
		next.MaxIterations = newMax
	}
	prev, _ := gitstore.ParseHash(st.Snapshot)
	prevTree, _ := gitstore.ParseHash(st.Tree)
	snapCommit, changed, err := s.snapshotCommit(prev, prevTree, snap.Tree, name, next.Iteration)
	if err != nil {
		return nil, err
	}
	next.Snapshot, next.Tree, next.JudgedTree = snapCommit.String(), snap.Tree.String(), snap.Tree.String()
	passed := map[string]bool{}
	var unmet []string
	var failing []GateResult
	for _, g := range results {
		passed[g.Name] = g.Status == gates.StatusPass
		if g.Failed() {
			failing = append(failing, g)
			unmet = append(unmet, "gate "+g.Name)
		}
	}
	for _, c := range cfg.Criteria {
		if c.Verify == verifyExecution && !passed[c.Gate] {
			unmet = append(unmet, "criterion "+c.Name)
		}
	}
	if len(failing) == 0 && !Verified(results) && (cfg.Exit == exitBoth || cfg.Exit == exitGates) {
		unmet = append(unmet, unmetAllSkipped) // as assess: gates that all skipped verified nothing
	}
	// The judgement is a stop's: checks weakened since the start keep it from completing.
	weakened, err := s.weakenings(cfg, st, snap.Tree)
	if err != nil {
		return nil, err
	}
	next.Weakened = capWeakenings(blocking(weakened))
	if n := len(blocking(weakened)); n > 0 {
		unmet = append(unmet, unmetWeakened(n))
	}
	const since = "the worktree changed since the gates passed"
	layer, evidence := route(cfg, failing)
	decision := DecideComplete
	switch {
	case len(unmet) == 0:
		next.Status = StatusCompleted
		next.Reason = fmt.Sprintf("completion confirmed by user at iteration %d: %s, and they pass on it again", next.Iteration, since)
	case evidence.Status == gates.StatusBlocked:
		decision, next.Status = DecidePause, StatusPaused
		next.Reason = fmt.Sprintf("completion not confirmed: %s and gate %s is blocked and needs a person: %s", since, evidence.Name, gateLine(evidence))
	default:
		decision, next.Status = DecideContinue, StatusActive
		next.Reason = fmt.Sprintf("completion not confirmed: %s and %s", since, strings.Join(unmet, ", ")+" unmet")
		if evidence.Name != "" {
			next.Reason = fmt.Sprintf("completion not confirmed: %s and gate %s fails: %s", since, evidence.Name, gateLine(evidence))
		}
		next.Reason += fmt.Sprintf(" (`git loop show %s %d`); the agent is sent back at its next stop", name, next.Iteration)
		if next.MaxIterations > 0 && next.Iteration >= next.MaxIterations {
			decision, next.Status = DecidePause, StatusPaused
			next.Reason += fmt.Sprintf("; no iteration is left: `git loop resume %s --max-iterations %d`", name, next.MaxIterations*2)
		}
	}
	rec := &Iteration{Number: next.Iteration, Kind: kindConfirm, At: now, Snapshot: next.Snapshot, Tree: next.Tree, Changed: changed,
		Files: snap.Files, Hashed: snap.Hashed, Decision: decision, Reason: next.Reason, Gates: results, Layer: layer, Unmet: unmet, Weakened: weakened}
	ch := &change{state: next, iteration: rec, snapshot: snapCommit, decision: decision,
		subject: fmt.Sprintf("loop %s: iteration %d: %s (%s)", name, next.Iteration, decision, textutil.FirstLine(next.Reason))}
	if decision != DecideContinue {
		if ch.files, err = s.reportFiles(cfg, &next, tip, rec); err != nil {
			return nil, err
		}
	}
	return ch, nil
}

// gateLine is the last non-empty line of a gate's output, to quote in a one-line reason.
func gateLine(g GateResult) string {
	line := textutil.FirstLine(strings.TrimSpace(textutil.LastLines(g.Tail, 1)))
	if line == "" {
		return fmt.Sprintf("%s, exit %d", g.Status, g.ExitCode)
	}
	return line
}

// ResumeNotDone resumes a loop paused at its completion checkpoint without completing it:
// the agent is sent back to work.
func (s *Store) ResumeNotDone(name string, newMax int) (*State, error) {
	return s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		if st.Status != StatusPaused || st.Checkpoint != checkpointCompletion {
			return nil, fmt.Errorf("%w: loop %q is not paused at its completion checkpoint (it is %s: %s); --not-done answers that checkpoint only", ErrConfig, name, st.Status, st.Reason)
		}
		return s.resumeAtCheckpoint(name, tip, st, true, newMax)
	})
}

// PrintShape writes how a loop runs and its spec's score, for `status` and `start`: the
// score is advice, so a weak spec gets the hints that would strengthen it.
func PrintShape(w io.Writer, cfg *Config) {
	if cfg.Spec == nil {
		return
	}
	how := "runs as a tool, unattended"
	if cfg.Shape == spec.ShapeColleague {
		how = "runs as a colleague: pauses after the plan, after each iteration and before completion for `git loop resume`"
	}
	fmt.Fprintf(w, "spec:      %s; %s\n", cfg.Spec.Summary(), how)
	if cfg.Spec.Shape != spec.ShapeTool {
		fmt.Fprintf(w, "advice:    the task would guide the agent better with %s (`git loop score` shows how)\n", missingHints(*cfg.Spec))
	}
}

// afterIteration names the checkpoint after iteration i: the plan after the first.
func afterIteration(i int) string {
	if i <= 1 {
		return checkpointPlan
	}
	return checkpointIteration
}
