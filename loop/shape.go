package loop

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// ShapeAuto runs a loop in the shape its spec scores (loop.shape and --shape default to it).
const ShapeAuto = "auto"

// Checkpoints at which a colleague-shaped loop pauses for a person (State.Checkpoint).
const (
	CheckpointPlan       = "plan"       // after the first iteration: the agent's plan
	CheckpointIteration  = "iteration"  // after each later iteration
	CheckpointCompletion = "completion" // before completing: a person confirms
)

// ScoreLoop scores a loop's spec: its prompt, with the loop's own terms as evidence — a
// gate is a measurable success check, and a promise or gates-only exit an explicit end.
func ScoreLoop(cfg *Config) SpecScore {
	s := ScoreSpec(cfg.Prompt)
	var gates, ends []string
	for _, g := range cfg.Gates {
		gates = append(gates, fmt.Sprintf("gate %q (%s)", g.Name, clip(g.Run, 40)))
	}
	for _, p := range cfg.Promises {
		ends = append(ends, fmt.Sprintf("promise %q", p))
	}
	if len(ends) == 0 && len(cfg.Gates) > 0 && cfg.Exit == ExitGates {
		ends = append(ends, "exit when every gate passes")
	}
	for i := range s.Dimensions {
		d := &s.Dimensions[i]
		switch {
		case d.Name == DimSuccess && len(gates) > 0:
			d.Found, d.Score, d.Missing = append(d.Found, gates...), 2, ""
		case d.Name == DimDone && len(ends) > 0:
			d.Found, d.Score, d.Missing = append(d.Found, ends...), 2, ""
		}
	}
	s.total()
	return s
}

// shapeLoop scores a new loop's spec and decides how it runs: the measured shape under
// auto, else the shape asked for. An intent-shaped spec is refused unless forced, and then
// runs as a colleague, pausing at checkpoints.
func shapeLoop(cfg *Config, asked string, force bool) error {
	spec := ScoreLoop(cfg)
	cfg.Spec = &spec
	switch asked {
	case ShapeTool, ShapeColleague:
		cfg.Shape = asked
		return nil
	case "", ShapeAuto:
	default:
		return fmt.Errorf("%w: shape %q (--shape or loop.shape): use auto, tool or colleague", ErrConfig, asked)
	}
	cfg.Shape = spec.Shape
	if spec.Shape != ShapeIntent {
		return nil
	}
	if force {
		cfg.Shape = ShapeColleague
		return nil
	}
	return fmt.Errorf("%w: %w: the prompt scores %d/10, weak in %s. Add %s (`git loop score` shows how), or pass --force to start anyway (the loop then pauses at checkpoints), or --shape tool to run it unattended",
		ErrConfig, ErrIntent, spec.Total, strings.Join(spec.Weak(), ", "), missingHints(spec))
}

// missingHints joins what the spec's absent (zero-scored) dimensions should add.
func missingHints(s SpecScore) string {
	var out []string
	for _, d := range s.Dimensions {
		if d.Score == 0 {
			out = append(out, d.Name+": "+firstClause(d.Missing))
		}
	}
	if len(out) == 0 {
		return "strengthen the weak dimensions"
	}
	return strings.Join(out, "; ")
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
	case CheckpointCompletion:
		reason = fmt.Sprintf("checkpoint before completion (%s): confirm with `git loop resume %s`, or send the agent back with `git loop resume %s --not-done`", v.Reason, cfg.Name, cfg.Name)
		agent = "Every condition for completion holds; the loop pauses before completing for a person to confirm. Stop here and summarise what you did and how it was verified."
	case CheckpointPlan:
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
// completes (the person confirmed what the gates verified), unless notDone sends the agent
// back; elsewhere it goes on. The breakers keep counting: a checkpoint is not a trip.
func (s *Store) resumeAtCheckpoint(name string, tip gitstore.Hash, st *State, notDone bool, newMax int) (*change, error) {
	next := *st
	now := s.Now().UTC()
	next.Checkpoint, next.UpdatedAt, next.IterationStart = "", now, now
	snap, _ := gitstore.ParseHash(st.Snapshot)
	if st.Checkpoint == CheckpointCompletion && !notDone {
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
	if st.Checkpoint == CheckpointCompletion {
		next.Reason = "completion not confirmed: resumed by user"
	}
	if err := raiseLimit(name, &next, newMax); err != nil {
		return nil, err
	}
	return &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: %s", name, next.Reason)}, nil
}

// ResumeNotDone resumes a loop paused at its completion checkpoint without completing it:
// the agent is sent back to work.
func (s *Store) ResumeNotDone(name string, newMax int) (*State, error) {
	return s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		if st.Status != StatusPaused || st.Checkpoint != CheckpointCompletion {
			return nil, fmt.Errorf("%w: loop %q is not paused at its completion checkpoint (it is %s: %s); --not-done answers that checkpoint only", ErrConfig, name, st.Status, st.Reason)
		}
		return s.resumeAtCheckpoint(name, tip, st, true, newMax)
	})
}

// PrintShape writes how a loop runs, from its spec's score, for `status` and `start`.
func PrintShape(w io.Writer, cfg *Config) {
	if cfg.Spec == nil {
		return
	}
	fmt.Fprintf(w, "spec:      %s; runs as %s\n", cfg.Spec.Summary(), orDefaultString(cfg.Shape, ShapeTool))
	if cfg.Shape == ShapeColleague {
		fmt.Fprintln(w, "           pauses after the plan, after each iteration and before completion for `git loop resume`")
	}
}

// afterIteration names the checkpoint after iteration i: the plan after the first.
func afterIteration(i int) string {
	if i <= 1 {
		return CheckpointPlan
	}
	return CheckpointIteration
}
