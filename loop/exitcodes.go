package loop

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Exit-code rules a gate may declare with `exitCodes =` (Gate.ExitCodes).
const (
	// ExitCodesCI is the default, CI's rule: exit 0 passes and any other status fails.
	ExitCodesCI = "ci"
	// ExitCodesLayered is the layered protocol of safe-rust's gates: 0 pass, 1 fail,
	// 2 blocked (a person must act), 3 skip (not applicable); any other status fails.
	ExitCodesLayered = "layered"
)

// exitRule maps the exit statuses a gate declared to gate statuses; a status it does not
// list passes when 0 and fails otherwise.
type exitRule map[int]string

// ParseExitCodes reads a gate's `exitCodes` value: empty or "ci" (CI's rule), "layered"
// (2 blocked, 3 skip), or CODE=STATUS pairs separated by spaces or commas, such as
// "2=blocked 3=skip 5=skip", where STATUS is pass, fail, blocked or skip and CODE 1 to 255.
// "layered" may be combined with pairs, which win. Exit 0 always passes.
func ParseExitCodes(spec string) (exitRule, error) {
	rule := exitRule{}
	for _, tok := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		switch strings.ToLower(tok) {
		case ExitCodesCI:
			continue
		case ExitCodesLayered:
			for code, st := range map[int]string{2: GateBlocked, 3: GateSkip} {
				if _, set := rule[code]; !set {
					rule[code] = st
				}
			}
			continue
		}
		codeText, status, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, fmt.Errorf("%q is neither ci, layered nor CODE=STATUS", tok)
		}
		code, err := strconv.Atoi(codeText)
		switch {
		case err != nil || code < 0 || code > 255:
			return nil, fmt.Errorf("%q: the exit status must be a number from 1 to 255", tok)
		case code == 0:
			return nil, fmt.Errorf("%q: exit 0 always passes", tok)
		}
		switch status = strings.ToLower(status); status {
		case GatePass, GateFail, GateBlocked, GateSkip:
			rule[code] = status
		default:
			return nil, fmt.Errorf("%q: the status must be pass, fail, blocked or skip", tok)
		}
	}
	return rule, nil
}

// status is the gate status of exit code under the rule.
func (r exitRule) status(code int) string {
	if code == 0 {
		return GatePass
	}
	if st, ok := r[code]; ok {
		return st
	}
	return GateFail
}

// declares reports whether the rule lists a code with status st.
func (r exitRule) declares(st string) bool {
	for _, s := range r {
		if s == st {
			return true
		}
	}
	return false
}

// checkExitCodes validates a gate's exitCodes at start.
func checkExitCodes(g Gate) error {
	if _, err := ParseExitCodes(g.ExitCodes); err != nil {
		return fmt.Errorf("%w: gate %q exitCodes %q: %v; want ci (the default: 0 passes, anything else fails), layered (2 blocked, 3 skip) or CODE=STATUS pairs, e.g. `exitCodes = 2=blocked 3=skip`",
			ErrConfig, g.Name, g.ExitCodes, err)
	}
	return nil
}

// ExitStatus is how a command ended, from the error of its Wait: its exit code (-1 when it did
// not exit by itself, or could not be waited for) and the signal that ended it, if any. A
// POSIX shell reports a command a signal killed as 128+N; that status keeps its code and names
// the signal too, since `sh -c` gates report a crash no other way.
func ExitStatus(err error) (code int, signal string) {
	if err == nil {
		return 0, ""
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return -1, ""
	}
	if sig := waitSignal(ee); sig != "" {
		return -1, sig
	}
	code = ee.ExitCode()
	return code, shellSignal(code)
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
