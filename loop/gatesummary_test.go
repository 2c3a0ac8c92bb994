package loop

import (
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/diag"
	"github.com/git-loop/git-loop/loop/gates"
)

// TestFailingSummaries: every failing gate gets its line, saying how it ended; one whose
// output was not understood says its last line; counts that read as a pass never stand alone
// beside a failure; a program that could not run is named.
func TestFailingSummaries(t *testing.T) {
	one, zero, five := 1, 0, 5
	got := failingSummaries([]GateResult{
		{Result: gates.Result{Name: "build", Status: gates.StatusFail, ExitCode: 1, Diagnostics: &diag.Diagnostics{Errors: 1}}},
		{Result: gates.Result{Name: "vet", Status: gates.StatusFail, ExitCode: 1, Tail: "# m\nsomething odd happened\n\n"}},
		{Result: gates.Result{Name: "test", Status: gates.StatusFail, ExitCode: 1, Diagnostics: &diag.Diagnostics{Failed: &one}}},
		{Result: gates.Result{Name: "slow", Status: gates.StatusTimeout, ExitCode: -1}},
	})
	want := "\nGate results:\n- build: fail (exit 1): 1 error\n- vet: fail (exit 1): last line: something odd happened\n- test: fail (exit 1): 1 failed\n- slow: timeout\n"
	if got != want {
		t.Errorf("failingSummaries\n got %q\nwant %q", got, want)
	}
	tests := []struct {
		name string
		g    GateResult
		want string
	}{
		{"missing program, dash", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: 127, Tail: "sh: 1: nonexistent-tool: not found\n"}},
			"fail (exit 127): cannot run nonexistent-tool: not found"},
		{"missing program, bash", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: 127, Tail: "bash: line 1: cargo-nextest: command not found\n"}},
			"fail (exit 127): cannot run cargo-nextest: command not found"},
		{"not executable", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: 126, Tail: "sh: 1: ./check.sh: Permission denied\n"}},
			"fail (exit 126): cannot run ./check.sh: Permission denied"},
		{"127 from the program itself", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: 127, Tail: "my tool failed\n"}},
			"fail (exit 127): last line: my tool failed"},
		{"killed by a signal", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: -1, Signal: "SIGSEGV", Tail: "x\n"}},
			"fail (killed by SIGSEGV): last line: x"},
		{"crash reported by the shell", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: 139, Signal: "SIGSEGV", Tail: "Segmentation fault\n"}},
			"fail (exit 139, SIGSEGV): last line: Segmentation fault"},
		{"counts read as a pass", GateResult{Result: gates.Result{Status: gates.StatusFail, ExitCode: 3, Tail: "INTERNALERROR> boom\n", Diagnostics: &diag.Diagnostics{Failed: &zero, Passed: &five}}},
			"fail (exit 3): its output reads 0 failed, 5 passed, yet it failed; last line: INTERNALERROR> boom"},
	}
	for _, tt := range tests {
		if got := gateSummary(tt.g); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestMissingProgram(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{"sh: 1: nonexistent-tool: not found", "nonexistent-tool: not found"},
		{"bash: line 1: cargo-nextest: command not found", "cargo-nextest: command not found"},
		{"sh: ruff: command not found", "ruff: command not found"},
		{"zsh:1: command not found: eslint", "eslint: command not found"},
		{"sh: 1: ./lint.sh: Permission denied", "./lint.sh: Permission denied"},
		{"bash: ./bin/check: No such file or directory", "./bin/check: No such file or directory"},
		{"make: *** [Makefile:2: test] Error 127", ""},
		{"error: the test named adds was not found in 3 files", ""},
		{"", ""},
		{":", ""},
	} {
		if got := missingProgram(tt.line); got != tt.want {
			t.Errorf("missingProgram(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
	if got := cannotRun(1, "sh: 1: x: not found\n"); got != "" {
		t.Errorf("cannotRun names a program for exit 1: %q", got)
	}
}

// FuzzMissingProgram: any line gives a one-line answer that names the complaint it read.
func FuzzMissingProgram(f *testing.F) {
	for _, s := range []string{"sh: 1: x: not found", "zsh:1: command not found: y", "a: b: Permission denied", ": not found", "zsh:command not found: "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := missingProgram(line)
		if strings.Contains(got, "\n") && !strings.Contains(line, "\n") {
			t.Fatalf("%q gave a multi-line answer %q", line, got)
		}
	})
}
