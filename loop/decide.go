package loop

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-loop/git-loop/loop/checks"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/spec"
)

// Decisions of one iteration.
const (
	DecideContinue  = "continue"  // block the stop: the agent goes back to work
	DecideComplete  = "complete"  // gates pass and the exit conditions hold
	DecidePause     = "pause"     // a limit or breaker tripped: a person decides
	DecideCancelled = "cancelled" // the loop was cancelled: let the agent stop
	decideAllow     = "allow"     // the loop is not active (paused, ended): let the agent stop
)

// Observation is what one iteration saw: the snapshot, the gates' results and the agent's
// last message. It is gathered by the caller; decide does no I/O.
type Observation struct {
	At           time.Time
	Tree         string       // the snapshot's tree
	Gates        []GateResult // in layer order; empty when the loop has no gates
	Message      string       // the agent's last message
	MessageKnown bool         // false when the agent's protocol delivers no message
	Tokens       int64        // tokens used so far, from the transcript (0 when unknown)
	Touched      []string     // paths changed since the previous iteration's snapshot
	Commands     []string     // commands the agent ran this iteration, when known
	// FreshContext is set when every iteration runs the agent afresh (the driver): its
	// session cannot grow long, so no long-session warning applies.
	FreshContext bool
	// Cap is the agent's own limit on consecutive blocks, when it has one; see BlockCap.
	Cap BlockCap
	// Weakened lists how the snapshot's checks are weaker than at the loop's start, each
	// with what allows it, if anything; one nothing allows keeps the loop from completing.
	Weakened []checks.Weakening
}

// BlockCap is an agent's own limit on the stop hook: past Limit blocks in a row it stops
// honouring them and ends its turn, leaving a loop active with nobody working on it. Claude
// Code counts the blocks between which no tool ran (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, 8 by
// default); Copilot CLI every block (8).
type BlockCap struct {
	Limit int    // blocks honoured in a row; 0: no known cap
	Agent string // who caps, for the reason: "Claude Code"
	How   string // what the person can change, for the reason, if anything
	// Continued is set when this stop follows a block (stop_hook_active); Acted, when the
	// agent ran a tool since, which resets Claude Code's count (nil: unknown, the tree's
	// change stands for it). An agent counting every block leaves Acted false.
	Continued bool
	Acted     *bool
}

// Verdict is decide's answer.
type Verdict struct {
	Decision string   `json:"decision"`
	Reason   string   `json:"reason"` // one line, also recorded in the state
	Layer    string   `json:"layer,omitempty"`
	Unmet    []string `json:"unmet,omitempty"`
	Signals  Signals  `json:"signals"`
	// ForAgent is the continuation message (on continue) or why it may stop.
	ForAgent string `json:"for_agent,omitempty"`
	// ForUser is a short line for the person watching.
	ForUser string `json:"for_user,omitempty"`
	// State is the loop's state after this iteration.
	State State `json:"-"`
}

// decide judges one iteration, in the order of ARCHITECTURE.md ("Decision order"): not
// active; hard limits; must-not conditions; completion; circuit breakers; otherwise continue. A colleague-shaped loop
// pauses instead of completing or continuing, at a checkpoint a person answers with
// `git loop resume`. A long session adds a warning to the messages. It is pure: the same
// inputs always give the same verdict.
func decide(cfg *Config, st *State, obs Observation) Verdict {
	switch st.Status {
	case StatusCancelled:
		return Verdict{Decision: DecideCancelled, Reason: "loop cancelled", State: *st}
	case StatusActive:
	default:
		return Verdict{Decision: decideAllow, Reason: "loop is " + st.Status, State: *st}
	}
	next := *st
	next.Iteration++
	next.UpdatedAt = obs.At
	next.Tree = obs.Tree
	next.Breakers = st.Breakers.clone()
	next.Checkpoint = ""
	next.Weakened = capWeakenings(blocking(obs.Weakened))
	warning := pace(st, &next, obs.At)
	if obs.FreshContext {
		warning = ""
	}
	sig := parseSignals(obs.Message, cfg.Promises, cfg.Markers)
	v := Verdict{Signals: sig}
	if reason, resume := hardLimit(cfg, &next, obs); reason != "" {
		return v.pauseFor(cfg, next, reason, resume)
	}
	if reason := mustNot(cfg, obs); reason != "" {
		return v.pause(cfg, next, reason)
	}
	unmet, failing := assess(cfg, obs, sig)
	v.Unmet = unmet
	fewer := fewerTests(&next, st.TestsSeen, obs.Gates)
	for _, g := range failing {
		if g.Status == gates.StatusBlocked && g.Judge != nil { // judged impossible, or the evaluator's budget spent
			return v.pause(cfg, next, judgePause(g))
		}
		if g.Status == gates.StatusBlocked { // a status its exitCodes declares blocked: a person must act
			return v.pause(cfg, next, fmt.Sprintf("gate %s is blocked and needs a person: %s (`git loop check` runs it again)", g.Name, gateLine(g)))
		}
	}
	if len(unmet) == 0 {
		v.Decision, v.Reason, v.State = DecideComplete, completionReason(cfg, obs.Gates, sig)+allowedText(obs.Weakened), next
		v.State.Status, v.State.Reason = StatusCompleted, v.Reason
		v.ForUser = fmt.Sprintf("loop %s completed at iteration %d: %s", cfg.Name, next.Iteration, v.Reason)
		if fewer != "" {
			v.ForUser += "; note: " + fewer
		}
		if cfg.Shape == spec.ShapeColleague {
			return v.checkpoint(cfg, next, checkpointCompletion, warning)
		}
		return v
	}
	layer, evidence := route(cfg, failing)
	v.Layer = layer
	reason, advice := next.Breakers.observe(cfg, st.Tree, next.Iteration, obs, unmet, failing, layer)
	if reason != "" {
		return v.pause(cfg, next, reason)
	}
	if next.MaxIterations > 0 && next.Iteration >= next.MaxIterations {
		reason, resume := limitReason(cfg, next, unmet)
		return v.pauseFor(cfg, next, reason, resume)
	}
	if reason := next.countBlock(st, obs); reason != "" {
		return v.pause(cfg, next, reason)
	}
	v.Decision, v.State = DecideContinue, next
	v.Reason = "unmet: " + strings.Join(unmet, ", ")
	v.State.Reason = v.Reason
	v.ForAgent = continuation(cfg, next, obs, unmet, failing, layer, evidence, sig)
	v.ForUser = fmt.Sprintf("loop %s: iteration %s, sent back (%s)", cfg.Name, FormatIteration(next.Iteration, next.MaxIterations), v.Reason)
	if fewer != "" {
		v.ForAgent += "\nNote: " + fewer + ".\n"
		v.ForUser += "; note: " + fewer
	}
	if advice != "" { // advice, not a stop: the loop is moving
		v.ForAgent += "\nNote: " + advice + ". Before changing it once more, check that the fix does not undo what made another layer pass.\n"
		v.ForUser += "; note: " + advice + " (set loop.reworkLimit to pause instead)"
	}
	if cfg.Shape == spec.ShapeColleague {
		return v.checkpoint(cfg, next, afterIteration(next.Iteration), warning)
	}
	v.withWarning(next, warning)
	return v
}

// pause ends the iteration with the loop paused for a person; `git loop resume NAME` goes on.
func (v Verdict) pause(cfg *Config, next State, reason string) Verdict {
	return v.pauseFor(cfg, next, reason, "git loop resume "+cfg.Name)
}

// pauseFor ends the iteration with the loop paused for a person, naming resume, the command
// that goes on from this pause (at a limit, the resume that raises it).
func (v Verdict) pauseFor(cfg *Config, next State, reason, resume string) Verdict {
	v.Decision, v.Reason, v.State = DecidePause, reason, next
	v.State.Status, v.State.Reason = StatusPaused, reason
	v.ForAgent = "The loop is paused for a person to look at: " + reason + ". Stop here and summarise where things stand."
	v.ForUser = fmt.Sprintf("loop %s paused at iteration %d: %s; inspect with `git loop status %s`", cfg.Name, next.Iteration, reason, cfg.Name)
	if !strings.Contains(reason, "`"+resume+"`") { // a limit's reason names it already
		v.ForUser += fmt.Sprintf(", continue with `%s`", resume)
	}
	return v
}

// countBlock counts the block this stop would get against the agent's cap and says why the
// loop must pause instead: a block the agent will not honour would leave the loop active
// with nobody working on it.
func (next *State) countBlock(st *State, obs Observation) string {
	c := obs.Cap
	if c.Limit <= 0 {
		next.Blocks = 0
		return ""
	}
	acted := obs.Tree != st.Tree
	if c.Acted != nil {
		acted = *c.Acted
	}
	next.Blocks = 1
	if c.Continued && !acted {
		next.Blocks = st.Blocks + 1
	}
	if next.Blocks <= c.Limit {
		return ""
	}
	next.Blocks = 0
	reason := fmt.Sprintf("%s stops honouring a stop hook after %d blocks in a row", c.Agent, c.Limit)
	if c.How != "" {
		reason += " (" + c.How + ")"
	}
	return reason + fmt.Sprintf(", so the loop pauses rather than stay active with nobody working on it; resume it with `git loop resume %s`, then ask the agent to go on", next.Name)
}

// unmetLimit is what a loop that only its iteration limit ends (exit policy limit) has
// unmet at every iteration.
const unmetLimit = "the iteration limit (no promise or gate ends this loop)"

// limitReason says why a loop paused at its iteration limit and names the resume that
// raises it, which is the command that works there.
func limitReason(cfg *Config, next State, unmet []string) (reason, resume string) {
	resume = fmt.Sprintf("git loop resume %s --max-iterations %d", cfg.Name, next.MaxIterations*2)
	again := "to go on, resume with a higher limit: `" + resume + "`"
	if cfg.Exit == ExitLimit {
		return fmt.Sprintf("ran to its limit of %d iterations (no promise or gate ends this loop); %s", next.MaxIterations, again), resume
	}
	return fmt.Sprintf("max iterations reached (%d) with %s unmet; %s", next.MaxIterations, strings.Join(unmet, ", "), again), resume
}

// hardLimit checks iterations, wall clock and token budget, and names the resume that
// raises the limit that was reached.
func hardLimit(cfg *Config, next *State, obs Observation) (reason, resume string) {
	if next.MaxIterations > 0 && next.Iteration > next.MaxIterations {
		resume = fmt.Sprintf("git loop resume %s --max-iterations %d", cfg.Name, next.MaxIterations*2)
		return fmt.Sprintf("max iterations exceeded (%d); to go on, resume with a higher limit: `%s`", next.MaxIterations, resume), resume
	}
	if d := next.maxDuration(cfg); d > 0 && next.running(obs.At) > d {
		resume = fmt.Sprintf("git loop resume %s --max-duration %s", cfg.Name, shortDuration(longerLimit(next.running(obs.At))))
		return fmt.Sprintf("wall-clock limit reached (%s); to go on, resume with a longer one: `%s`", shortDuration(d), resume), resume
	}
	if budget := next.tokenBudget(cfg); budget > 0 && obs.Tokens > budget {
		resume = fmt.Sprintf("git loop resume %s --token-budget %d", cfg.Name, max(budget*2, obs.Tokens+budget))
		return fmt.Sprintf("token budget exceeded (%d of %d); to go on, resume with a higher budget: `%s`", obs.Tokens, budget, resume), resume
	}
	return "", ""
}

// longerLimit is the wall-clock limit a resume suggests for a loop that has run elapsed:
// twice that, rounded up to a whole second, minute or ten minutes.
func longerLimit(elapsed time.Duration) time.Duration {
	d := 2 * elapsed
	unit := time.Second
	switch {
	case d >= time.Hour:
		unit = 10 * time.Minute
	case d >= time.Minute:
		unit = time.Minute
	}
	return (d + unit - 1).Truncate(unit)
}

// shortDuration writes d the way a person types it: 2h, 1h30m, 90s.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// mustNot checks irreversible paths and forbidden commands.
func mustNot(cfg *Config, obs Observation) string {
	for _, p := range obs.Touched {
		for _, g := range cfg.Irreversible {
			if globMatch(g, p) {
				return fmt.Sprintf("irreversible path %s touched (matches %s)", p, g)
			}
		}
	}
	for _, c := range obs.Commands {
		for _, m := range cfg.MustNot {
			if m != "" && strings.Contains(c, m) {
				return fmt.Sprintf("must-not command run: %q (contains %q)", c, m)
			}
		}
	}
	return ""
}

// globMatch matches a slash-separated path against a glob, where a glob without a slash
// matches the base name at any depth and a trailing "/**" matches everything below.
func globMatch(glob, p string) bool {
	if prefix, ok := strings.CutSuffix(glob, "/**"); ok {
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(p))
		return ok
	}
	ok, _ := path.Match(glob, p)
	return ok
}

// unmetAllSkipped is what a stop at which every command gate was skipped has unmet: it
// verified nothing, so it cannot complete on its gates.
const unmetAllSkipped = "a gate that passes (every gate was skipped: nothing was verified)"

// assess lists what is unmet: failing gates (by name), required gates that did not pass,
// conditions the evaluator did not judge met, criteria not verified, and the exit signal when
// the policy needs one. Whatever the policy, a failing gate keeps the loop going: the agent
// cannot talk its way out; nor can a judge's condition complete the loop unless its verdict
// this iteration is a pass. A skipped gate neither fails nor passes, but a stop at which every
// command gate skipped verified nothing and does not complete on its gates.
func assess(cfg *Config, obs Observation, sig Signals) (unmet []string, failing []GateResult) {
	passed := map[string]bool{}
	for _, g := range obs.Gates {
		if g.Name == testEditsJudge && g.Judge != nil {
			continue // its verdict allowed weakenings or not: see obs.Weakened
		}
		if g.Failed() {
			failing = append(failing, g)
			unmet = append(unmet, "gate "+g.Name)
		}
		passed[g.Name] = g.Status == gates.StatusPass
	}
	allPass := len(failing) == 0
	if allPass && !Verified(obs.Gates) {
		allPass = false // either: the signal must complete it
		if cfg.Exit == exitBoth || cfg.Exit == exitGates {
			unmet = append(unmet, unmetAllSkipped)
		}
	}
	for _, j := range cfg.Judges {
		if !passed[j.Name] {
			allPass = false
			if !slices.Contains(unmet, "gate "+j.Name) {
				unmet = append(unmet, "gate "+j.Name)
			}
		}
	}
	for _, c := range cfg.Criteria {
		if !criterionMet(c, passed, sig) {
			unmet = append(unmet, "criterion "+c.Name)
		}
	}
	needSignal := false
	switch cfg.Exit {
	case exitBoth, exitPromise:
		needSignal = true
	case exitEither:
		needSignal = !allPass || !cfg.hasChecks()
	}
	if !obs.MessageKnown && cfg.hasChecks() {
		needSignal = false // the protocol delivers no message: the gates decide, as the agent is told
	}
	if needSignal && !sig.Exit() {
		unmet = append(unmet, "exit signal")
	}
	if cfg.Exit == ExitLimit { // nothing completes it: it runs to its limit
		unmet = append(unmet, unmetLimit)
	}
	if n := len(blocking(obs.Weakened)); n > 0 { // whatever the policy: the yardstick was shortened
		unmet = append(unmet, unmetWeakened(n))
	}
	return unmet, failing
}

func criterionMet(c Criterion, passed map[string]bool, sig Signals) bool {
	switch c.Verify {
	case verifyExecution:
		return passed[c.Gate]
	case VerifyObservation:
		return sig.Status != nil && sig.Status.Criteria[c.Name]
	}
	return false // assumption never completes a loop
}

// completionReason says what completed the loop: the gates (naming those that skipped), the
// evaluator's verdicts, the agent's signal.
func completionReason(cfg *Config, gates []GateResult, sig Signals) string {
	parts := []string{}
	if len(cfg.Gates) > 0 {
		parts = append(parts, gatesPassText(gates))
	}
	switch len(cfg.Judges) {
	case 0:
	case 1:
		parts = append(parts, "the evaluator judged the condition met")
	default:
		parts = append(parts, fmt.Sprintf("the evaluator judged all %d conditions met", len(cfg.Judges)))
	}
	switch {
	case sig.Promise != "":
		parts = append(parts, fmt.Sprintf("promise %q made", sig.Promise))
	case sig.Marker != "":
		parts = append(parts, fmt.Sprintf("marker %q given", sig.Marker))
	case sig.Status != nil && sig.Status.ExitSignal:
		parts = append(parts, "EXIT_SIGNAL given")
	}
	return strings.Join(parts, " and ")
}

// gatesPassText is "all gates pass", or "the gates pass (2 passed; skipped: lint)" when a
// command gate was skipped.
func gatesPassText(results []GateResult) string {
	var skipped []string
	pass := 0
	for _, g := range results {
		switch {
		case g.Judge != nil:
		case g.Status == gates.StatusSkip:
			skipped = append(skipped, g.Name)
		case g.Status == gates.StatusPass:
			pass++
		}
	}
	if len(skipped) == 0 {
		return "all gates pass"
	}
	return fmt.Sprintf("the gates pass (%d passed; skipped: %s)", pass, strings.Join(skipped, ", "))
}

// route picks the layer to rework and the failure that shows why: a route whose pattern
// matches a failing gate's output (that gate is the evidence), else the first failing layer.
func route(cfg *Config, failing []GateResult) (string, GateResult) {
	if len(failing) == 0 {
		return "", GateResult{}
	}
	for _, r := range cfg.Routes {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			continue
		}
		for _, g := range failing {
			if re.MatchString(g.Tail) {
				return r.Layer, g
			}
		}
	}
	sorted := append([]GateResult(nil), failing...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Layer < sorted[j].Layer })
	return sorted[0].Name, sorted[0]
}

// judgePause is why an evaluator gate pauses the loop: the evaluator judged its condition
// impossible, or the loop's evaluator budget is spent. Neither ever completes it.
func judgePause(g GateResult) string {
	if g.Judge.Verdict == VerdictBudget {
		return fmt.Sprintf("%s: %s", g.Name, g.Judge.Reason)
	}
	return fmt.Sprintf("the evaluator judged %s's condition impossible: %s (condition: %q)", g.Name, g.Judge.Reason, g.Judge.Condition)
}
