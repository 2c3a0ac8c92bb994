package gates

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

// parseExitCodes reads a gate's `exitCodes` value: empty or "ci" (CI's rule), "layered"
// (2 blocked, 3 skip), or CODE=STATUS pairs separated by spaces or commas, such as
// "2=blocked 3=skip 5=skip", where STATUS is pass, fail, blocked or skip and CODE 1 to 255.
// "layered" may be combined with pairs, which win. Exit 0 always passes.
func parseExitCodes(spec string) (exitRule, error) {
	rule := exitRule{}
	for _, tok := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		switch strings.ToLower(tok) {
		case ExitCodesCI:
			continue
		case ExitCodesLayered:
			for code, st := range map[int]string{2: StatusBlocked, 3: StatusSkip} {
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
		case StatusPass, StatusFail, StatusBlocked, StatusSkip:
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
		return StatusPass
	}
	if st, ok := r[code]; ok {
		return st
	}
	return StatusFail
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
