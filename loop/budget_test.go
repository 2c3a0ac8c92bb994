package loop

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestHookTimeout(t *testing.T) {
	tests := []struct {
		name  string
		gates []Gate
		want  time.Duration
	}{
		{"no gates", nil, 660 * time.Second},
		{"default gates", []Gate{{Name: "a"}, {Name: "b", Timeout: "nonsense"}}, 660 * time.Second},
		{"short gates still leave room for a default one", []Gate{{Name: "a", Timeout: "30s"}}, 660 * time.Second},
		{"a long gate", []Gate{{Name: "a", Timeout: "2m"}, {Name: "b", Timeout: "30m"}}, 1860 * time.Second},
		{"rounded up to 10 s", []Gate{{Name: "a", Timeout: "1h0m4s"}}, 3670 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HookTimeout(tt.gates, nil)
			if got != tt.want {
				t.Errorf("HookTimeout = %v, want %v", got, tt.want)
			}
			// Nesting: the longest gate, stopped, and the record fit in it.
			longest := DefaultGateTimeout
			for _, g := range tt.gates {
				longest = max(longest, g.timeoutOr(DefaultGateTimeout))
			}
			if longest+gateKillGrace+gatePipeGrace+hookRecordMargin > got {
				t.Errorf("%v does not hold a %v gate and the record", got, longest)
			}
		})
	}
}

// TestRunGatesDeadline: a deadline (a stop hook's timeout) cuts a gate's own timeout to
// leave time to stop it, and says so; past the deadline a gate is not started.
func TestRunGatesDeadline(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sleep")
	}
	dir := t.TempDir()
	opts := RunOptions{Dir: dir, Deadline: time.Now().Add(gateKillGrace + gatePipeGrace + 300*time.Millisecond), DeadlineWhy: "the agent gives its stop hook 20s"}
	res := runGates(context.Background(), []Gate{{Name: "hang", Run: "sleep 30"}}, opts)
	if r := res[0]; r.Status != GateTimeout || !strings.Contains(r.Tail, "was cut off after") || !strings.Contains(r.Tail, "before its own timeout of 10m0s") || !strings.Contains(r.Tail, "the agent gives its stop hook 20s") {
		t.Errorf("hung gate: %s %q", r.Status, r.Tail)
	}
	opts.Deadline = time.Now()
	res = runGates(context.Background(), []Gate{{Name: "late", Run: "exit 0"}}, opts)
	if r := res[0]; r.Status != GateTimeout || !strings.HasPrefix(r.Tail, "not run: the stop's deadline had passed") {
		t.Errorf("gate past the deadline: %s %q", r.Status, r.Tail)
	}
}

// TestHookTimeoutHoldsTheEvaluator: with judges, the hook's timeout holds the evaluator's
// after the gates', so an evaluator that uses its whole timeout is not cut by the agent.
func TestHookTimeoutHoldsTheEvaluator(t *testing.T) {
	gates := []Gate{{Name: "a", Timeout: "2m"}}
	for _, tt := range []struct {
		ev   *Evaluator
		want time.Duration
	}{
		{nil, 660 * time.Second},
		{&Evaluator{Command: "judge"}, 780 * time.Second},                  // the default 2m, with its grace
		{&Evaluator{Command: "judge", Timeout: "10m"}, 1260 * time.Second}, // its own
	} {
		got := HookTimeout(gates, tt.ev)
		if got != tt.want {
			t.Errorf("HookTimeout(%+v) = %v, want %v", tt.ev, got, tt.want)
		}
		if tt.ev != nil && got-HookTimeout(gates, nil) < tt.ev.timeout() {
			t.Errorf("HookTimeout(%+v) = %v leaves the evaluator less than its %v", tt.ev, got, tt.ev.timeout())
		}
	}
}
