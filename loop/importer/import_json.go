package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/loop"
)

// parseSafeRust reads .safe-rust/loop-state.json as the safe-rust plugin documents it
// (commands/loop.md and hooks/stop-hook.sh of the safe-rust Claude plugin): active, started,
// iteration, max_iterations (default 10), current_layer, completion_promise
// ("ALL_GATES_PASS"), gates_passed, gates_remaining, rework_count,
// last_failure {layer, reason, routed_to}, and optionally safety_limits
// {max_iterations, max_rework_per_layer, timeout_minutes, escalation_on_limit}.
// The file records no task, so the task is described from the layers it records; its gates
// are /safe-rust:gate slash commands, which git-loop cannot run as shell gates.
func parseSafeRust(im *Imported, text string) error {
	f, err := parseJSONFile(im.File, text)
	if err != nil {
		return err
	}
	if !hasAny(f, "active", "iteration", "max_iterations", "current_layer", "completion_promise", "gates_passed", "gates_remaining", "last_failure", "safety_limits") {
		return importError(im.File, "it records nothing of a safe-rust loop (no layers, gates, iterations or promise)", "check the path, or start the loop with `git loop start -p TASK`")
	}
	im.PromptDerived = true
	im.Prompt = safeRustPrompt(f)
	if err := takePromise(f, im, "completion_promise"); err != nil {
		return err
	}
	if err := takeMaxIterations(f, im, "max_iterations"); err != nil {
		return err
	}
	if err := safeRustLimits(f, im); err != nil {
		return err
	}
	if passed := f.list("gates_passed"); len(passed) > 0 {
		im.skip("gates_passed: %s (every gate is judged again by the new loop)", showValue(strings.Join(passed, ", ")))
	}
	im.skip("safe-rust gates (/safe-rust:gate N) are slash commands, not shell commands: add gates with --gate NAME=CMD")
	if n, ok := wholeNumberField(f, "rework_count"); ok {
		im.skip("rework_count: %d (the new loop counts rework from 0)", n)
	}
	for _, k := range []string{"completed", "paused"} {
		if b, ok := f.flag(k); ok && b {
			im.skip("%s: true (the imported loop starts active)", k)
		}
	}
	skipCommon(f, im, "iteration", "started")
	f.skipRest(im)
	return nil
}

// safeRustPrompt describes the verification still to do from the recorded layers.
func safeRustPrompt(f *fields) string {
	var b strings.Builder
	b.WriteString("Continue the safe-rust verification loop: execute each remaining layer, run its gate (/safe-rust:gate N), and fix what fails, until every gate passes.")
	if n, ok := wholeNumberField(f, "current_layer"); ok {
		fmt.Fprintf(&b, "\nCurrent layer: %d.", n)
	}
	if v := f.list("gates_passed"); len(v) > 0 {
		fmt.Fprintf(&b, "\nGates passed before the import: %s.", strings.Join(v, ", "))
	}
	if v := f.list("gates_remaining"); len(v) > 0 {
		fmt.Fprintf(&b, "\nGates remaining: %s.", strings.Join(v, ", "))
	}
	if lf := f.object("last_failure"); lf != nil {
		sub := newFields(f.file, lf)
		layer, _, _ := sub.text("layer")
		reason, _, _ := sub.text("reason")
		routed, _, _ := sub.text("routed_to")
		fmt.Fprintf(&b, "\nLast failure: layer %s", orText(layer, "?"))
		if reason != "" {
			fmt.Fprintf(&b, ", %s", reason)
		}
		if routed != "" {
			fmt.Fprintf(&b, " (routed to layer %s for rework)", routed)
		}
		b.WriteString(".")
	}
	return b.String()
}

// safeRustLimits carries safety_limits: rework per layer and the wall-clock timeout.
func safeRustLimits(f *fields, im *Imported) error {
	sl := f.object("safety_limits")
	if sl == nil {
		return nil
	}
	sub := newFields(f.file, sl)
	if im.MaxIterations == nil {
		if err := takeMaxIterations(sub, im, "max_iterations"); err != nil {
			return err
		}
	} else if v, ok := sub.raw("max_iterations"); ok {
		im.skip("safety_limits.max_iterations: %s (max_iterations %d wins)", showValue(v), *im.MaxIterations)
	}
	if n, ok, err := sub.count("max_rework_per_layer"); err != nil {
		return err
	} else if ok && n > 0 {
		im.Limits.Rework = n
	}
	if n, ok, err := sub.count("timeout_minutes"); err != nil {
		return err
	} else if ok && n > 0 {
		im.MaxDuration = fmt.Sprintf("%dm", n)
	}
	for _, k := range sortedKeys(sl) {
		if !sub.used[k] {
			im.skip("safety_limits.%s: %s (git-loop has no equivalent)", k, showValue(sl[k]))
		}
	}
	return nil
}

// parseLoopState reads .loop/state.json as the moo.md /loop plugin writes it
// (saadshahd/moo.md, loop/skills/start/references/loop-mechanics.md and
// loop/hooks/scripts/stop-check.sh): spec, criteria, criteriaStatus (name → true/false, or
// {met, verification}), steps, completedSteps, remainingSteps, iteration, status,
// circuitBreaker {stuckCount …}, exit_signal. Its exit needs every criterion met and
// <loop-complete> (or exit_signal); git-loop keeps both: criteria become observation
// criteria reported in the status block, and <loop-complete> a completion marker.
func parseLoopState(im *Imported, text string) error {
	f, err := parseJSONFile(im.File, text)
	if err != nil {
		return err
	}
	spec, _, err := f.text("spec")
	if err != nil {
		return err
	}
	if strings.TrimSpace(spec) == "" {
		return importError(im.File, "it records no spec (the task)", "add \"spec\" to the file, or start the loop with `git loop start -p TASK`")
	}
	im.Prompt = spec
	im.Markers = []string{"<loop-complete>"}
	loopStateCriteria(f, im)
	if err := loopStateBreaker(f, im); err != nil {
		return err
	}
	for _, k := range []string{"maxIterations", "max_iterations"} {
		if err := takeMaxIterations(f, im, k); err != nil {
			return err
		}
	}
	for _, k := range []string{"steps", "completedSteps", "remainingSteps"} {
		if v := f.list(k); len(v) > 0 {
			im.skip("%s: %s (git-loop tracks no step list; the task says what to do)", k, showValue(strings.Join(v, "; ")))
		}
	}
	if st, ok, _ := f.text("status"); ok && st != "" && st != "in_progress" && st != "active" {
		im.skip("status: %q (the imported loop starts active)", st)
	}
	skipCommon(f, im, "iteration", "startedAt", "lastCheckpoint")
	f.skipRest(im)
	return nil
}

// loopStateCriteria carries the criteria, in the order of "criteria", then any others
// criteriaStatus names; whether each was met is listed, since the new loop verifies again.
func loopStateCriteria(f *fields, im *Imported) {
	status := f.object("criteriaStatus")
	names := f.list("criteria")
	for _, k := range sortedKeys(status) {
		names = append(names, k)
	}
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		c := ImportedCriterion{Name: name}
		switch v := status[name].(type) {
		case bool:
			c.Met = v
		case map[string]any:
			c.Met, _ = v["met"].(bool)
			c.Verification, _ = v["verification"].(string)
		}
		im.Criteria = append(im.Criteria, c)
		if c.Met {
			how := ""
			if c.Verification != "" {
				how = " by " + c.Verification
			}
			im.skip("criterion %q was met%s: the new loop verifies it again", name, how)
		}
	}
	if b, ok := f.flag("exit_signal"); ok && b {
		im.skip("exit_signal: true (the agent signals again in the new loop)")
	}
}

// loopStateBreaker carries circuit-breaker thresholds (keys naming stuck, same error, no
// progress or rework with Threshold, Limit or max); counters are listed, not carried.
func loopStateBreaker(f *fields, im *Imported) error {
	cb := f.object("circuitBreaker")
	for _, k := range sortedKeys(cb) {
		key := strings.ToLower(k)
		dst := breakerTarget(&im.Limits, key)
		isLimit := strings.Contains(key, "threshold") || strings.Contains(key, "limit") || strings.HasPrefix(key, "max")
		if dst != nil && isLimit {
			n, ok := wholeNumber(cb[k])
			if !ok || n == 0 {
				return importError(f.file, fmt.Sprintf("circuitBreaker.%s is %s, not a number ≥ 1", k, showValue(cb[k])), "fix it, or remove it to use git-loop's default")
			}
			*dst = n
			continue
		}
		im.skip("circuitBreaker.%s: %s (the new loop's breakers count from 0)", k, showValue(cb[k]))
	}
	return nil
}

func breakerTarget(l *loop.Limits, key string) *int {
	switch {
	case strings.Contains(key, "stuck"):
		return &l.Stuck
	case strings.Contains(key, "sameerror"), strings.Contains(key, "same_error"):
		return &l.SameError
	case strings.Contains(key, "noprogress"), strings.Contains(key, "no_progress"):
		return &l.NoProgress
	case strings.Contains(key, "rework"):
		return &l.Rework
	}
	return nil
}

// moaiMarkers are the completion markers of MoAI-ADK's stop hook (COMPLETION_MARKERS in
// .claude/hooks/moai/stop__loop_controller.py).
var moaiMarkers = []string{"<moai>DONE</moai>", "<moai>COMPLETE</moai>", "<moai:done />", "<moai:complete />"}

// parseMoAI reads .moai/cache/.moai_loop_state.json as MoAI-ADK's loop controller writes
// it (its LoopState dataclass and docs): active, iteration, max_iterations,
// last_error_count, last_warning_count, files_modified, start_time, completion_reason. The
// file records no task, so the task is described from the diagnostics it counted; MoAI's
// completion conditions (zero errors, tests, coverage) live in .moai/config/sections/
// ralph.yaml, not here, and are listed for the user to add as gates.
func parseMoAI(im *Imported, text string) error {
	f, err := parseJSONFile(im.File, text)
	if err != nil {
		return err
	}
	if !hasAny(f, "active", "iteration", "max_iterations", "last_error_count", "last_warning_count", "files_modified", "start_time", "completion_reason") {
		return importError(im.File, "it records nothing of a MoAI loop (no iteration, diagnostics or files)", "check the path, or start the loop with `git loop start -p TASK`")
	}
	im.PromptDerived = true
	var b strings.Builder
	b.WriteString("Continue the MoAI feedback loop: fix the LSP errors and warnings and failing tests until none are left.")
	errs, hasErrs := wholeNumberField(f, "last_error_count")
	warns, hasWarns := wholeNumberField(f, "last_warning_count")
	if hasErrs || hasWarns {
		fmt.Fprintf(&b, "\nLast count: %d errors, %d warnings.", errs, warns)
	}
	if files := f.list("files_modified"); len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles modified so far: %s.", strings.Join(files, ", "))
	}
	im.Prompt = b.String()
	im.Markers = append([]string(nil), moaiMarkers...)
	if err := takeMaxIterations(f, im, "max_iterations"); err != nil {
		return err
	}
	im.skip("MoAI's completion conditions (zero errors, tests pass, coverage) are in .moai/config/sections/ralph.yaml: add them as gates with --gate NAME=CMD")
	if r, ok, _ := f.text("completion_reason"); ok && r != "" {
		im.skip("completion_reason: %q (the imported loop starts active)", r)
	}
	skipCommon(f, im, "iteration", "start_time")
	f.skipRest(im)
	return nil
}

func hasAny(f *fields, keys ...string) bool {
	for _, k := range keys {
		if _, ok := f.m[k]; ok {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
