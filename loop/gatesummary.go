package loop

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/diag"
	"github.com/git-loop/git-loop/loop/gates"
)

// failingSummaries is one line per failing gate, for the continuation message: what its
// output says ("- test: 3 failed, 41 passed; coverage 72.5%") when it was understood, and
// always how it ended and what went wrong first (see gateSummary).
func failingSummaries(failing []GateResult) string {
	var b strings.Builder
	for _, g := range failing {
		fmt.Fprintf(&b, "- %s: %s\n", g.Name, gateSummary(g))
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nGate results:\n" + b.String()
}

// gateSummary is one line on a gate that did not pass: an evaluator's verdict and reason, or
// how the command ended ("fail (exit 2)", "fail (killed by SIGSEGV)"), then what went wrong
// first (the program it could not run, the first failing test or error its output names) and
// the counts its output shows, else its last line. Counts that read as a pass ("0 failed")
// beside a failing exit status are said to be contradicted, never shown alone.
func gateSummary(g GateResult) string {
	if g.Judge != nil {
		return g.Judge.Verdict + ": " + lastLine(g.Judge.Reason)
	}
	head := g.Status
	switch {
	case g.ExitCode < 0 && g.Signal != "":
		head += " (killed by " + g.Signal + ")"
	case g.ExitCode > 0 && g.Signal != "":
		head += fmt.Sprintf(" (exit %d, %s)", g.ExitCode, g.Signal)
	case g.ExitCode > 0:
		head += fmt.Sprintf(" (exit %d)", g.ExitCode)
	}
	first := failureWhat(g)
	if cannotRun(g.ExitCode, g.Tail) != "" { // the shell's complaint says it all
		return head + ": " + first
	}
	var parts []string
	if first != "" {
		parts = append(parts, first)
	}
	if d := g.Diagnostics; d != nil && d.String() != "" {
		if g.ExitCode > 0 && readsAsPass(d) {
			parts = append(parts, "its output reads "+d.String()+", yet it failed")
		} else {
			parts = append(parts, d.String())
		}
	}
	if last := lastLine(g.Tail); first == "" && last != "" {
		parts = append(parts, "last line: "+last)
	}
	if len(parts) == 0 {
		return head
	}
	return head + ": " + strings.Join(parts, "; ")
}

// failureWhat names what went wrong first in a failing gate: the program it could not run,
// or the first failing test or error its output names; "" when neither is known.
func failureWhat(g GateResult) string {
	if what := cannotRun(g.ExitCode, g.Tail); what != "" {
		return "cannot run " + what
	}
	if g.Diagnostics != nil {
		return g.Diagnostics.FirstFailure
	}
	return ""
}

// readsAsPass reports whether diagnostics show nothing wrong: no failed test, no error.
func readsAsPass(d *diag.Diagnostics) bool {
	return (d.Failed == nil || *d.Failed == 0) && d.Errors == 0
}

// summarySuffix is "  (3 failed, 41 passed)" for a gate line, or nothing.
func summarySuffix(d *diag.Diagnostics) string {
	if d == nil || d.String() == "" {
		return ""
	}
	return "  (" + d.String() + ")"
}

// GateConditions is " (require coverage >= 85; coverage from cover.out; exit codes layered)"
// for status, or nothing for a gate judged by CI's rule alone.
func GateConditions(g gates.Gate) string {
	var parts []string
	if len(g.Require) > 0 {
		parts = append(parts, "require "+strings.Join(g.Require, ", "))
	}
	if g.Coverage != "" {
		parts = append(parts, "coverage from "+g.Coverage)
	}
	if g.ExitCodes != "" && g.ExitCodes != gates.ExitCodesCI {
		parts = append(parts, "exit codes "+g.ExitCodes)
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

// cannotRun says what kept a gate's command from running when it exited 126 or 127, the
// statuses POSIX shells give a command they could not find or execute: "nonexistent-tool:
// command not found". It is "" for other statuses, or when the output names nothing.
func cannotRun(code int, tail string) string {
	if code != 126 && code != 127 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-20; i-- {
		if what := missingProgram(lines[i]); what != "" {
			return what
		}
	}
	return ""
}

// missingProgram reads one shell complaint: dash's "sh: 1: tool: not found", bash's
// "bash: line 1: tool: command not found" or "sh: tool: command not found", zsh's
// "zsh:1: command not found: tool", and "…: tool: Permission denied" or "No such file or
// directory" for a program that exists but cannot run. It returns "tool: why".
func missingProgram(line string) string {
	line = strings.TrimSpace(line)
	for _, why := range []string{"command not found", "not found", "Permission denied", "No such file or directory", "cannot execute binary file"} {
		if rest, ok := strings.CutPrefix(line[strings.LastIndex(line, ":")+1:], " "); ok && rest == why {
			head := strings.TrimSuffix(line, ": "+why)
			prog := strings.TrimSpace(head[strings.LastIndex(head, ":")+1:])
			if prog != "" && !strings.ContainsAny(prog, " \t") {
				return prog + ": " + why
			}
		}
		if rest, ok := strings.CutPrefix(line, "zsh:"); ok && strings.Contains(rest, why+": ") {
			return strings.TrimSpace(rest[strings.Index(rest, why+": ")+len(why)+2:]) + ": " + why
		}
	}
	return ""
}

// endedHow says how a command that did not pass ended: "exited 2", "was killed by SIGSEGV",
// "exited 139 (SIGSEGV)".
func endedHow(code int, signal string) string {
	switch {
	case code < 0 && signal != "":
		return "was killed by " + signal
	case code < 0:
		return "ended abnormally"
	case signal != "":
		return fmt.Sprintf("exited %d (%s)", code, signal)
	}
	return fmt.Sprintf("exited %d", code)
}
