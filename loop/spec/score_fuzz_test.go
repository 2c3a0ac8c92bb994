package spec

import (
	"reflect"
	"testing"
)

// FuzzScoreSpec: any text scores without panicking, each dimension within 0..2, the total
// their sum within 0..10 and its shape, a known workflow, and the same score every time.
func FuzzScoreSpec(f *testing.F) {
	for _, seed := range []string{"", "make it better", "Fix `Add` in calc.go only. It must not panic. Done when `go test ./...` exits 0.",
		"don't touch x/", "``", "`", "a.b", "100 % 5ms == >= ≥", "package", "the package", "Rename ParseCfg(", "--json --",
		"\xff\xfe`\x00`", "done when when done", "ÉTÉ.ÉTÉ Ωmega/ψ"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := ScoreSpec(text)
		if len(s.Dimensions) != 5 {
			t.Fatalf("%d dimensions", len(s.Dimensions))
		}
		sum := 0
		for _, d := range s.Dimensions {
			if d.Score < 0 || d.Score > 2 {
				t.Fatalf("%s scores %d", d.Name, d.Score)
			}
			if d.Score < 2 && d.Missing == "" {
				t.Fatalf("%s scores %d and says nothing is missing", d.Name, d.Score)
			}
			sum += d.Score
		}
		if s.Total != sum || s.Total < 0 || s.Total > 10 || s.Shape != shapeOf(s.Total) {
			t.Fatalf("total %d (sum %d), shape %s", s.Total, sum, s.Shape)
		}
		switch s.Workflow {
		case workflowBuild, workflowDebug, workflowRefactor:
		default:
			t.Fatalf("workflow %q", s.Workflow)
		}
		if again := ScoreSpec(text); !reflect.DeepEqual(s, again) {
			t.Fatalf("not deterministic:\n%+v\n%+v", s, again)
		}
	})
}
