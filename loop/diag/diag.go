package diag

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
)

// Diagnostics is what a gate's output says beyond its exit status: tests passed, failed and
// skipped, compiler and linter errors and warnings, and coverage. It is recorded with each
// gate result, shown in the continuation message and the report, and checked by a gate's
// `require` conditions.
//
// Test counts and coverage are nil when the output shows none (a metric that is absent is
// not zero). Errors and warnings count the diagnostics recognised; a tool that prints
// nothing has none, so they are plain numbers.
type Diagnostics struct {
	Passed   *int     `json:"passed,omitempty"`
	Failed   *int     `json:"failed,omitempty"`
	Skipped  *int     `json:"skipped,omitempty"`
	Errors   int      `json:"errors,omitempty"`
	Warnings int      `json:"warnings,omitempty"`
	Coverage *float64 `json:"coverage,omitempty"` // percent, 0–100
	// Formats names the output formats recognised, e.g. "go test", "pytest", "cargo test".
	Formats []string `json:"formats,omitempty"`
	// FirstFailure is one line naming what failed first, at most 200 bytes: the first failing
	// test with where and why when the output says ("TestAdd (calc_test.go:9: Add(2, 2) = 5,
	// want 4)", "test_calc.py::test_add (test_calc.py:9: assert 5 == 4)"); else the first
	// compiler, linter or runtime error at its place ("calc.c:3:21: error: expected ';'",
	// "src/lib.rs:3:13: error[E0425]: …", "conftest.py:2: RuntimeError: broken hook"); else
	// the first line that plainly says what went wrong (a failed assert, a harness's "FAIL:"
	// line, "sh: 1: tool: not found", "grep: x: No such file or directory"); else a runner's
	// summary ("no tests ran"); else, as a last resort, the build tool's own line ("make: ***
	// [Makefile:2: test] Error 1", "FAIL pkg 0.01s", "npm error …"). Empty when the output
	// shows none of these. It is not part of String, which stays a short count.
	FirstFailure string `json:"first_failure,omitempty"`
}

// Empty reports whether nothing was recognised.
func (d Diagnostics) Empty() bool {
	return d.Passed == nil && d.Failed == nil && d.Skipped == nil && d.Errors == 0 && d.Warnings == 0 &&
		d.Coverage == nil && len(d.Formats) == 0 && d.FirstFailure == ""
}

// Metric names a gate's `require` conditions may use.
const (
	metricCoverage = "coverage"
	metricPassed   = "passed"
	metricFailed   = "failed"
	metricSkipped  = "skipped"
	metricErrors   = "errors"
	metricWarnings = "warnings"
)

// metricNames lists the metrics in the order error messages name them.
var metricNames = []string{metricCoverage, metricPassed, metricFailed, metricSkipped, metricErrors, metricWarnings}

// Metric returns the value of a metric and whether the output showed it. Errors and
// warnings are always known (none recognised is zero).
func (d Diagnostics) Metric(name string) (float64, bool) {
	count := func(p *int) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return float64(*p), true
	}
	switch name {
	case metricCoverage:
		if d.Coverage == nil {
			return 0, false
		}
		return *d.Coverage, true
	case metricPassed:
		return count(d.Passed)
	case metricFailed:
		return count(d.Failed)
	case metricSkipped:
		return count(d.Skipped)
	case metricErrors:
		return float64(d.Errors), true
	case metricWarnings:
		return float64(d.Warnings), true
	}
	return 0, false
}

// String is the one-line summary: "3 failed, 41 passed, 1 skipped; 2 errors; coverage 72.5%".
// It is empty when nothing was recognised.
func (d Diagnostics) String() string {
	var parts []string
	var tests []string
	for _, c := range []struct {
		n    *int
		word string
	}{{d.Failed, "failed"}, {d.Passed, "passed"}, {d.Skipped, "skipped"}} {
		if c.n != nil && (*c.n > 0 || c.word != "skipped") {
			tests = append(tests, fmt.Sprintf("%d %s", *c.n, c.word))
		}
	}
	if len(tests) > 0 {
		parts = append(parts, strings.Join(tests, ", "))
	}
	var problems []string
	if d.Errors > 0 {
		problems = append(problems, textutil.CountNoun(d.Errors, "error"))
	}
	if d.Warnings > 0 {
		problems = append(problems, textutil.CountNoun(d.Warnings, "warning"))
	}
	if len(problems) > 0 {
		parts = append(parts, strings.Join(problems, ", "))
	}
	if d.Coverage != nil {
		parts = append(parts, "coverage "+formatPercent(*d.Coverage))
	}
	return strings.Join(parts, "; ")
}

// formatPercent renders a percentage with at most one decimal: 72.5%, 85%.
func formatPercent(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + "%"
}

// AddCount adds n to a count that may not be known yet.
func AddCount(p **int, n int) {
	if *p == nil {
		*p = new(int)
	}
	**p += n
}
