package report

import (
	"fmt"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// verdict is the report's release decision and, unless it is SHIP, why:
//   - RESEARCH: the loop did not complete (active, paused, cancelled), it completed while
//     a gate's last run failed (an exit policy that trusts the promise alone), or its final
//     snapshot is not the tree its gates were last judged on;
//   - MONITOR: it completed, but a gate was skipped or never ran, a gate's last run passed
//     with warnings or skipped tests, the loop has no gate at all, or a criterion is only
//     assumed;
//   - SHIP: it completed, every gate's last run passed cleanly and nothing is assumed.
//
// Weakened checks count too: one nothing allowed is RESEARCH, one allowed by configuration
// or by the task's scope is MONITOR; one a person approved needs nothing more.
func verdict(cfg *loop.Config, st *loop.State, layers []LayerReport, weakened []WeakeningReport) (string, []string) {
	if st.Status != loop.StatusCompleted {
		return Research, []string{notCompleted(st)}
	}
	research, monitor := weakenedVerdict(weakened)
	if len(layers) > 0 && st.JudgedTree != "" && st.Tree != st.JudgedTree {
		research = append(research, fmt.Sprintf("the final snapshot (tree %s) is not the tree the gates were last judged on (%s): run `git loop check %s` on it",
			textutil.Short(st.Tree), textutil.Short(st.JudgedTree), st.Name))
	}
	for _, l := range layers {
		switch {
		case l.Final == gates.StatusPass:
			monitor = append(monitor, passWarnings(l)...)
		case l.Final == gates.StatusSkip:
			monitor = append(monitor, fmt.Sprintf("gate %s was skipped in its last run", l.Gate))
		case l.Attempts == 0:
			monitor = append(monitor, fmt.Sprintf("gate %s never ran", l.Gate))
		default:
			research = append(research, fmt.Sprintf("gate %s's last run: %s", l.Gate, l.Final))
		}
	}
	if len(research) > 0 {
		return Research, research
	}
	if len(layers) == 0 {
		monitor = append(monitor, "no gate checked the work: it rests on the agent's word")
	}
	for _, c := range cfg.Criteria {
		if c.Verify == loop.VerifyAssumption {
			monitor = append(monitor, fmt.Sprintf("criterion %s is only assumed", c.Name))
		}
	}
	if len(monitor) > 0 {
		return Monitor, monitor
	}
	return Ship, []string{}
}

// notCompleted says where a loop that did not complete stands.
func notCompleted(st *loop.State) string {
	switch st.Status {
	case loop.StatusActive:
		return fmt.Sprintf("the loop is still running (iteration %d)", st.Iteration)
	case loop.StatusPaused:
		return "the loop is paused: " + textutil.OrDefaultString(textutil.FirstLine(st.Reason), "no reason recorded")
	case loop.StatusCancelled:
		return "the loop was cancelled: " + textutil.OrDefaultString(textutil.FirstLine(st.Reason), "no reason recorded")
	}
	return "the loop did not complete (" + st.Status + ")"
}

// passWarnings are the warnings and skipped tests of a passing gate's last run.
func passWarnings(l LayerReport) []string {
	d := l.Diagnostics
	if d == nil {
		return nil
	}
	var out []string
	if d.Warnings > 0 {
		out = append(out, fmt.Sprintf("gate %s passed with %s", l.Gate, textutil.CountNoun(d.Warnings, "warning")))
	}
	if d.Skipped != nil && *d.Skipped > 0 {
		out = append(out, fmt.Sprintf("gate %s passed with %s skipped", l.Gate, textutil.CountNoun(*d.Skipped, "test")))
	}
	return out
}

// verdictText is the verdict footer's explanation.
func verdictText(release string) string {
	switch release {
	case Ship:
		return "every gate passes and nothing rests on an assumption."
	case Monitor:
		return "completed, but look at what was skipped, warned about or assumed before shipping."
	}
	return "not done: a person should look before shipping."
}
