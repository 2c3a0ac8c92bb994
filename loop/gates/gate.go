package gates

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-loop/git-loop/loop/diag"
)

// Gate is one ordered check run against a snapshot: a command gate, as a loop's
// configuration holds it (loop.json) and Run runs it.
type Gate struct {
	Name    string `json:"name"`
	Run     string `json:"run"`
	Timeout string `json:"timeout,omitempty"`
	// Require lists conditions on the gate's diagnostics, such as "coverage >= 85"; the gate
	// fails when one does not hold (see diag.ParseRequirement).
	Require []string `json:"require,omitempty"`
	// Coverage is the path of a coverage report the gate's command writes, relative to the
	// worktree; its total replaces any coverage read from the output.
	Coverage string `json:"coverage,omitempty"`
	// ExitCodes is how the command's exit status is read: empty, CI's rule (0 passes,
	// anything else fails); "layered" or CODE=STATUS pairs for a command that reports
	// blocked or skipped runs by its status (see ExitCodesLayered).
	ExitCodes string `json:"exit_codes,omitempty"`
}

// Check says what is wrong with the gate's options, checked when a loop starts: a require
// condition that does not parse, a blank coverage path, an exitCodes value that does not
// parse, a timeout that is no duration. Its error names the gate.
func (g Gate) Check() error {
	for _, text := range g.Require {
		if _, err := diag.ParseRequirement(text); err != nil {
			return fmt.Errorf("gate %q: %v", g.Name, err)
		}
	}
	if g.Coverage != "" && strings.TrimSpace(g.Coverage) == "" {
		return fmt.Errorf("gate %q: coverage is blank; give the path of the report its command writes, e.g. coverage = cover.out", g.Name)
	}
	if _, err := parseExitCodes(g.ExitCodes); err != nil {
		return fmt.Errorf("gate %q exitCodes %q: %v; want ci (the default: 0 passes, anything else fails), layered (2 blocked, 3 skip) or CODE=STATUS pairs, e.g. `exitCodes = 2=blocked 3=skip`",
			g.Name, g.ExitCodes, err)
	}
	if g.Timeout != "" {
		if _, err := time.ParseDuration(g.Timeout); err != nil {
			return fmt.Errorf("gate %q timeout %q: want a duration such as 90s or 10m", g.Name, g.Timeout)
		}
	}
	return nil
}

// TimeoutOr is the gate's own timeout when it sets a valid positive one, else def.
func (g Gate) TimeoutOr(def time.Duration) time.Duration {
	if d, err := time.ParseDuration(strings.TrimSpace(g.Timeout)); err == nil && d > 0 {
		return d
	}
	return def
}
