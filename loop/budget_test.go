package loop

import (
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop/gates"
)

func TestHookTimeout(t *testing.T) {
	tests := []struct {
		name  string
		gates []gates.Gate
		want  time.Duration
	}{
		{"no gates", nil, 660 * time.Second},
		{"default gates", []gates.Gate{{Name: "a"}, {Name: "b", Timeout: "nonsense"}}, 660 * time.Second},
		{"short gates still leave room for a default one", []gates.Gate{{Name: "a", Timeout: "30s"}}, 660 * time.Second},
		{"a long gate", []gates.Gate{{Name: "a", Timeout: "2m"}, {Name: "b", Timeout: "30m"}}, 1860 * time.Second},
		{"rounded up to 10 s", []gates.Gate{{Name: "a", Timeout: "1h0m4s"}}, 3670 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HookTimeout(tt.gates, nil)
			if got != tt.want {
				t.Errorf("HookTimeout = %v, want %v", got, tt.want)
			}
			// Nesting: the longest gate, stopped, and the record fit in it.
			longest := gates.DefaultTimeout
			for _, g := range tt.gates {
				longest = max(longest, g.TimeoutOr(gates.DefaultTimeout))
			}
			if longest+gates.KillGrace+gates.PipeGrace+hookRecordMargin > got {
				t.Errorf("%v does not hold a %v gate and the record", got, longest)
			}
		})
	}
}

// TestHookTimeoutHoldsTheEvaluator: with judges, the hook's timeout holds the evaluator's
// after the gates', so an evaluator that uses its whole timeout is not cut by the agent.
func TestHookTimeoutHoldsTheEvaluator(t *testing.T) {
	gs := []gates.Gate{{Name: "a", Timeout: "2m"}}
	for _, tt := range []struct {
		ev   *Evaluator
		want time.Duration
	}{
		{nil, 660 * time.Second},
		{&Evaluator{Command: "judge"}, 780 * time.Second},                  // the default 2m, with its grace
		{&Evaluator{Command: "judge", Timeout: "10m"}, 1260 * time.Second}, // its own
	} {
		got := HookTimeout(gs, tt.ev)
		if got != tt.want {
			t.Errorf("HookTimeout(%+v) = %v, want %v", tt.ev, got, tt.want)
		}
		if tt.ev != nil && got-HookTimeout(gs, nil) < tt.ev.timeout() {
			t.Errorf("HookTimeout(%+v) = %v leaves the evaluator less than its %v", tt.ev, got, tt.ev.timeout())
		}
	}
}
