package loop

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
)

// tailLines is how much of a failing gate's output the continuation shows.
const tailLines = 40

// continuation is the message that sends the agent back: the original task, where the loop
// stands, the layer to rework with the tail of its output, and what would complete the loop.
func continuation(cfg *Config, next State, obs Observation, unmet []string, failing []GateResult, layer string, evidence GateResult, sig Signals) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(cfg.Prompt))
	fmt.Fprintf(&b, "\n\n---\ngit-loop: iteration %s. Not done yet: %s.\n", FormatIteration(next.Iteration, next.MaxIterations), strings.Join(unmet, ", "))
	if sig.Exit() && len(failing) > 0 {
		fmt.Fprintf(&b, "You signalled completion, but %s not pass; the loop goes on until they do.\n", gateList(failing))
	}
	if sig.QuotedPromise {
		b.WriteString("Your <promise> was inside code (backticks or a fenced block), where it does not count: write it as plain text.\n")
	}
	b.WriteString(failingSummaries(failing))
	b.WriteString(weakenedText(cfg.Name, next.Iteration, blocking(obs.Weakened), obs.Gates))
	switch {
	case layer != "" && evidence.Name == layer && evidence.Judge != nil:
		j := evidence.Judge
		fmt.Fprintf(&b, "\nEvery command gate passes, but the evaluator (`%s`) judged that this condition does not hold yet (%s):\n\n%s\n\nIts reason:\n\n%s\n",
			j.Evaluator, j.Verdict, fence(j.Condition), fence(j.Reason))
	case layer != "" && evidence.Name == layer:
		fmt.Fprintf(&b, "\nRework layer %d, gate %q (%s, exit %d). The end of its output:\n\n%s\n", evidence.Layer, evidence.Name, evidence.Status, evidence.ExitCode, fence(textutil.LastLines(evidence.Tail, tailLines)))
	case layer != "":
		fmt.Fprintf(&b, "\nRework layer %q: a routing rule sends this failure there. The output of gate %q that matched:\n\n%s\n", layer, evidence.Name, fence(textutil.LastLines(evidence.Tail, tailLines)))
	}
	switch {
	case cfg.Exit == ExitLimit:
		fmt.Fprintf(&b, "\nThis loop has no completion promise and no gate: it runs until its iteration limit (iteration %d), whatever you write. Keep improving the work toward the task.", next.MaxIterations)
	case !obs.MessageKnown && needsSignal(cfg) && cfg.hasChecks():
		gated := *cfg
		gated.Exit = exitGates
		fmt.Fprintf(&b, "\nThe loop completes when %s. (This agent's stop carries no message, so a promise cannot be seen: the gates decide.)", completionTerms(&gated))
	default:
		fmt.Fprintf(&b, "\nThe loop completes when %s.", completionTerms(cfg))
	}
	b.WriteString("\n")
	return b.String()
}

// gateList names failing gates: "build does" or "build and test do".
func gateList(gs []GateResult) string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Name
	}
	if len(names) == 1 {
		return names[0] + " does"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " do"
}

// fence wraps output in a code fence longer than any backtick run inside it, so gate output
// containing ``` cannot break out of the block.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + s + "\n" + f
}

func needsSignal(cfg *Config) bool { return cfg.Exit == exitBoth || cfg.Exit == exitPromise }

// endSentence says in one sentence what ends the loop: what completes it, or for a loop that
// nothing completes, its iteration limit.
func endSentence(cfg *Config) string {
	if cfg.Exit == ExitLimit {
		return "No promise or gate ends this loop: it runs until its iteration limit, whatever you write."
	}
	return fmt.Sprintf("The loop completes when %s.", completionTerms(cfg))
}

// completionTerms says in words what would complete the loop.
func completionTerms(cfg *Config) string {
	gateText := checksText(cfg)
	signal := "you write " + signalText(cfg) + " in your final message"
	var crit []string
	for _, c := range cfg.Criteria {
		if c.Verify == VerifyObservation {
			crit = append(crit, c.Name)
		}
	}
	critText := ""
	if len(crit) > 0 {
		critText = " and your ---LOOP_STATUS--- block reports CRITERIA " + strings.Join(crit, ", ") + " as true"
	}
	switch {
	case cfg.Exit == exitGates || (cfg.hasChecks() && cfg.Exit == exitEither):
		return gateText + critText
	case !cfg.hasChecks():
		return signal + critText
	}
	return gateText + " and " + signal + critText
}

func signalText(cfg *Config) string {
	switch {
	case len(cfg.Promises) > 0:
		return fmt.Sprintf("<promise>%s</promise>", cfg.Promises[0])
	case len(cfg.Markers) > 0:
		return cfg.Markers[0]
	}
	return "EXIT_SIGNAL: true in a ---LOOP_STATUS--- block"
}

// checksText says in words what the gates need: "every gate passes (build, test)", and "the
// evaluator judges met: "the README explains --judge"" for a loop with judges.
func checksText(cfg *Config) string {
	var parts []string
	if len(cfg.Gates) > 0 {
		var gates []string
		for _, g := range cfg.Gates {
			gates = append(gates, g.Name)
		}
		parts = append(parts, "every gate passes ("+strings.Join(gates, ", ")+")")
	}
	if len(cfg.Judges) > 0 {
		conds := make([]string, len(cfg.Judges))
		for i, j := range cfg.Judges {
			conds[i] = strconv.Quote(j.Condition)
		}
		parts = append(parts, "the evaluator judges met: "+strings.Join(conds, "; "))
	}
	return strings.Join(parts, " and ")
}
