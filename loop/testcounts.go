package loop

import (
	"fmt"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
)

// TestsSeen is the most tests a gate's output reported running (passed and failed, skips
// not counted) in one iteration of the loop, and in which.
type TestsSeen struct {
	Ran       int `json:"ran"`
	Iteration int `json:"iteration"`
}

// fewerTests records the tests each gate ran this iteration and says, for the gates that
// ran fewer than the most they ran before, by how many: advice, not a stop, since the
// diff of the checks is the evidence (an agent may remove a test it added itself).
func fewerTests(next *State, prev map[string]TestsSeen, results []GateResult) string {
	var notes []string
	seen := make(map[string]TestsSeen, len(prev))
	for k, v := range prev {
		seen[k] = v
	}
	for _, g := range results {
		d := g.Diagnostics
		if g.Judge != nil || d == nil || d.Passed == nil || g.Status != gates.StatusPass && g.Status != gates.StatusFail {
			continue
		}
		ran := *d.Passed
		if d.Failed != nil {
			ran += *d.Failed
		}
		best, ok := seen[g.Name]
		switch {
		case ok && ran < best.Ran:
			notes = append(notes, fmt.Sprintf("gate %s ran %s, %d at iteration %d", g.Name, textutil.CountNoun(ran, "test"), best.Ran, best.Iteration))
		case !ok || ran > best.Ran:
			seen[g.Name] = TestsSeen{Ran: ran, Iteration: next.Iteration}
		}
	}
	if len(seen) > 0 {
		next.TestsSeen = seen
	}
	if len(notes) == 0 {
		return ""
	}
	return strings.Join(notes, "; ") + " (skipped tests not counted): if tests were removed or turned off, restore them"
}
