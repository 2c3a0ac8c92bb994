package loop

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/git-loop/git-loop/loop/diag"
	"github.com/git-loop/git-loop/loop/internal/textutil"
)

// failingSummaries is one line per failing gate, for the continuation message: what its
// output says ("- test: 3 failed, 41 passed; coverage 72.5%") when it was understood, else
// its status and the last line it printed.
func failingSummaries(failing []GateResult) string {
	var b strings.Builder
	for _, g := range failing {
		s := ""
		if g.Judge != nil {
			s = g.Judge.Verdict + ": " + lastLine(g.Judge.Reason)
		} else if g.Diagnostics != nil {
			s = g.Diagnostics.String()
		}
		if s == "" {
			s = g.Status
			if g.ExitCode > 0 {
				s += fmt.Sprintf(" (exit %d)", g.ExitCode)
			}
			if last := lastLine(g.Tail); last != "" {
				s += ": " + last
			}
		}
		fmt.Fprintf(&b, "- %s: %s\n", g.Name, s)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nGate results:\n" + b.String()
}

// summarySuffix is "  (3 failed, 41 passed)" for a gate line, or nothing.
func summarySuffix(d *diag.Diagnostics) string {
	if d == nil || d.String() == "" {
		return ""
	}
	return "  (" + d.String() + ")"
}

// GateConditions is " (require coverage >= 85; coverage from cover.out)" for status, or
// nothing for a gate judged by its exit status alone.
func GateConditions(g Gate) string {
	var parts []string
	if len(g.Require) > 0 {
		parts = append(parts, "require "+strings.Join(g.Require, ", "))
	}
	if g.Coverage != "" {
		parts = append(parts, "coverage from "+g.Coverage)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// lastLine is the last non-blank line of s, trimmed and cut to 160 bytes on a rune boundary.
func lastLine(s string) string {
	s = strings.TrimSpace(textutil.LastLines(strings.TrimRight(s, " \t\r\n"), 1))
	if len(s) > 160 {
		cut := 160
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
