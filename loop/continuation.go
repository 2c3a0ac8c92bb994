package loop

import (
	"fmt"
	"strings"
)

// tailLines is how much of a failing gate's output the continuation shows.
const tailLines = 40

// continuation is the message that sends the agent back: the original task, where the loop
// stands, the layer to rework with the tail of its output, and what would complete the loop.
func continuation(cfg *Config, next State, obs Observation, unmet []string, failing []GateResult, layer string, sig Signals) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(cfg.Prompt))
	fmt.Fprintf(&b, "\n\n---\ngit-loop: iteration %s. Not done yet: %s.\n", formatIteration(next.Iteration, next.MaxIterations), strings.Join(unmet, ", "))
	if sig.Exit() && len(failing) > 0 {
		fmt.Fprintf(&b, "You signalled completion, but %s does not pass; the loop goes on until it does.\n", failing[0].Name)
	}
	if g, ok := gateNamed(failing, layer); ok {
		fmt.Fprintf(&b, "\nRework layer %d, gate %q (%s, exit %d). The end of its output:\n\n```\n%s\n```\n", g.Layer, g.Name, g.Status, g.ExitCode, lastLines(g.Tail, tailLines))
	} else if layer != "" {
		fmt.Fprintf(&b, "\nRework layer %q (a routing rule sends this failure there).\n", layer)
		if len(failing) > 0 {
			fmt.Fprintf(&b, "The failing gate is %q; the end of its output:\n\n```\n%s\n```\n", failing[0].Name, lastLines(failing[0].Tail, tailLines))
		}
	}
	fmt.Fprintf(&b, "\nThe loop completes when %s.", completionTerms(cfg))
	if !obs.MessageKnown && needsSignal(cfg) {
		b.WriteString(" (This agent's stop carries no message, so a promise cannot be seen: the gates decide.)")
	}
	b.WriteString("\n")
	return b.String()
}

func gateNamed(gs []GateResult, name string) (GateResult, bool) {
	for _, g := range gs {
		if g.Name == name {
			return g, true
		}
	}
	return GateResult{}, false
}

func needsSignal(cfg *Config) bool { return cfg.Exit == ExitBoth || cfg.Exit == ExitPromise }

// completionTerms says in words what would complete the loop.
func completionTerms(cfg *Config) string {
	var gates []string
	for _, g := range cfg.Gates {
		gates = append(gates, g.Name)
	}
	gateText := "every gate passes (" + strings.Join(gates, ", ") + ")"
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
	case cfg.Exit == ExitGates || (len(cfg.Gates) > 0 && cfg.Exit == ExitEither):
		return gateText + critText
	case len(cfg.Gates) == 0:
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

// lastLines returns at most n final lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
