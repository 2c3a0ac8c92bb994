package loop

import (
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/diag"
	"github.com/git-loop/git-loop/loop/gates"
)

func TestFewerTests(t *testing.T) {
	n := func(v int) *int { return &v }
	ran := func(passed, failed int) GateResult {
		return GateResult{Result: gates.Result{Name: "test", Status: gates.StatusPass, Diagnostics: &diag.Diagnostics{Passed: n(passed), Failed: n(failed)}}}
	}
	tests := []struct {
		name string
		prev map[string]TestsSeen
		gate GateResult
		want string // a part of the note; "" for none
		best TestsSeen
	}{
		{"first count", nil, ran(5, 0), "", TestsSeen{5, 3}},
		{"same", map[string]TestsSeen{"test": {5, 1}}, ran(4, 1), "", TestsSeen{5, 1}},
		{"more", map[string]TestsSeen{"test": {5, 1}}, ran(7, 0), "", TestsSeen{7, 3}},
		{"fewer", map[string]TestsSeen{"test": {5, 1}}, ran(3, 0), "gate test ran 3 tests, 5 at iteration 1", TestsSeen{5, 1}},
		{"skipped do not count as run", map[string]TestsSeen{"test": {5, 1}},
			GateResult{Result: gates.Result{Name: "test", Status: gates.StatusPass, Diagnostics: &diag.Diagnostics{Passed: n(4), Skipped: n(1)}}}, "ran 4 tests", TestsSeen{5, 1}},
		{"no counts", map[string]TestsSeen{"test": {5, 1}}, GateResult{Result: gates.Result{Name: "test", Status: gates.StatusFail}}, "", TestsSeen{5, 1}},
		{"timeout says nothing", map[string]TestsSeen{"test": {5, 1}},
			GateResult{Result: gates.Result{Name: "test", Status: gates.StatusTimeout, Diagnostics: &diag.Diagnostics{Passed: n(1)}}}, "", TestsSeen{5, 1}},
	}
	for _, tt := range tests {
		next := State{Iteration: 3}
		got := fewerTests(&next, tt.prev, []GateResult{tt.gate})
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: note %q, want %q", tt.name, got, tt.want)
		}
		if next.TestsSeen["test"] != tt.best {
			t.Errorf("%s: remembered %+v, want %+v", tt.name, next.TestsSeen["test"], tt.best)
		}
		if len(tt.prev) > 0 && tt.prev["test"] != (TestsSeen{5, 1}) {
			t.Errorf("%s: the previous state's counts were changed", tt.name)
		}
	}
}
