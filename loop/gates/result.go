package gates

import (
	"time"

	"github.com/git-loop/git-loop/loop/diag"
)

// Gate statuses. A command gate is read as CI reads a job: exit 0 passes and any other
// status fails, unless the gate declares statuses that mean blocked or skip (Gate.ExitCodes).
const (
	// StatusPass: the gate exited 0 (or with a status its exitCodes declares a pass).
	StatusPass = "pass"
	// StatusFail: the gate exited with any other status, or a signal killed it.
	StatusFail = "fail"
	// StatusBlocked: the gate exited with a status its exitCodes declares blocked (it cannot
	// judge the snapshot; a person must act), or it requires a figure its output lacks.
	StatusBlocked = "blocked"
	// StatusSkip: the gate exited with a status its exitCodes declares skip (not applicable),
	// or was not run in sequential mode because an earlier gate failed.
	StatusSkip = "skip"
	// StatusTimeout: the gate ran past its timeout, or the run was cancelled; its whole
	// process group was killed.
	StatusTimeout = "timeout"
	// StatusError: the gate could not be started.
	StatusError = "error"
)

// Result is the outcome of running one gate. The engine records it in an iteration, beside
// the evaluator's verdict for an evaluator gate (loop.GateResult).
type Result struct {
	Name     string `json:"name"`
	Layer    int    `json:"layer"` // 1-based position in the gate list
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"` // -1 when the gate did not exit by itself (killed, not started, not run)
	// Signal names the signal that killed the gate ("SIGSEGV"), also when its shell reported
	// the death as exit status 128+N.
	Signal   string        `json:"signal,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Tail is the last bytes of combined stdout+stderr, valid UTF-8 (invalid bytes replaced).
	Tail      string `json:"tail"`
	Truncated bool   `json:"truncated,omitempty"`
	// Fingerprint identifies the failure across reruns (numbers, hashes, durations and temp
	// paths in the output do not change it); set for fail, blocked, timeout and error.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Diagnostics sums up what the output says (tests, errors, coverage), when it says any.
	Diagnostics *diag.Diagnostics `json:"diagnostics,omitempty"`
}

// Passed reports whether the gate passed.
func (r Result) Passed() bool { return r.Status == StatusPass }

// Failed reports whether the result blocks completion: anything but pass or skip.
func (r Result) Failed() bool { return r.Status != StatusPass && r.Status != StatusSkip }
