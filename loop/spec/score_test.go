package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestScoreSpec scores realistic specs: each case pins the shape, the workflow and the
// dimensions' scores (outcome, scope, constraints, success, done).
func TestScoreSpec(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		scores   [5]int
		shape    string
		workflow string
	}{
		{"vague wish", "make it better", [5]int{0, 0, 0, 0, 0}, ShapeIntent, workflowBuild},
		{"tiny task", "task", [5]int{0, 0, 0, 0, 0}, ShapeIntent, workflowBuild},
		{"empty", "", [5]int{0, 0, 0, 0, 0}, ShapeIntent, workflowBuild},
		{"bug report without terms", "Fix the login redirect; add a test.", [5]int{1, 0, 0, 1, 0}, ShapeIntent, workflowDebug},
		{"precise tool spec", "Fix the off-by-one in `Paginate` in internal/page/page.go: the last page is dropped. " +
			"Only change internal/page; do not touch the HTTP handlers. Keep the exported API unchanged and add no new dependencies. " +
			"Done when `go test ./internal/page/...` passes with a test for 0, 1 and 21 items, then write <promise>PAGES OK</promise>.",
			[5]int{2, 2, 2, 2, 2}, ShapeTool, workflowDebug},
		{"refactor with bounds", "Rename ParseCfg to ParseConfig in the config package only; behaviour must not change. " +
			"All tests pass (`go test ./...`).", [5]int{2, 2, 1, 2, 0}, ShapeColleague, workflowRefactor},
		{"feature with coverage", "Add a --json flag to `git loop score` in main.go. Output must keep the plain table by default. " +
			"Coverage of loop/score.go stays at least 80%. The work is done when the tests pass and you write DONE.",
			[5]int{2, 1, 2, 2, 2}, ShapeTool, workflowBuild},
		{"colleague: outcome and success, no bounds", "Implement retry with backoff in fetch.go; `go test ./fetch` must pass.",
			[5]int{2, 1, 1, 2, 0}, ShapeColleague, workflowBuild},
		{"debug words win over build words", "The server crashes with a panic on empty input; fix it and add a regression test.",
			[5]int{1, 0, 0, 1, 0}, ShapeIntent, workflowDebug},
		{"abbreviations are not files", "Improve things, e.g. speed, i.e. everything, etc.", [5]int{0, 0, 0, 0, 0}, ShapeIntent, workflowBuild},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreSpec(tt.spec)
			var got [5]int
			for i, d := range s.Dimensions {
				got[i] = d.Score
				if d.Score < 2 && d.Missing == "" {
					t.Errorf("%s scores %d but says nothing about what is missing", d.Name, d.Score)
				}
				if d.Score > 0 && len(d.Found) == 0 {
					t.Errorf("%s scores %d without evidence", d.Name, d.Score)
				}
			}
			if got != tt.scores || s.Shape != tt.shape || s.Workflow != tt.workflow {
				t.Errorf("got %v %s %s, want %v %s %s\n%+v", got, s.Shape, s.Workflow, tt.scores, tt.shape, tt.workflow, s.Dimensions)
			}
		})
	}
}

func TestShapeOf(t *testing.T) {
	for total, want := range map[int]string{0: ShapeIntent, 4: ShapeIntent, 5: ShapeColleague, 7: ShapeColleague, 8: ShapeTool, 10: ShapeTool} {
		if got := shapeOf(total); got != want {
			t.Errorf("ShapeOf(%d) = %s, want %s", total, got, want)
		}
	}
}

// TestScoreEvidence: the evidence quotes what was found, so a person can see why.
func TestScoreEvidence(t *testing.T) {
	s := ScoreSpec("Fix `Add` in calc.go only. It must not panic. Done when `go test ./...` exits 0.")
	all := ""
	for _, d := range s.Dimensions {
		all += strings.Join(d.Found, "|") + "\n"
	}
	for _, want := range []string{`verb "fix"`, `artefact "Add"`, `artefact "calc.go"`, `location "calc.go"`, `bound "only"`,
		`constraint "must not"`, `command "go test ./..."`, `condition "done when"`} {
		if !strings.Contains(all, want) {
			t.Errorf("evidence lacks %s:\n%s", want, all)
		}
	}
	if strings.Contains(all, `constraint "must"`+"|") || strings.HasSuffix(strings.TrimSpace(all), `constraint "must"`) {
		t.Errorf("must not also counted as must:\n%s", all)
	}
}

func TestSpecFind(t *testing.T) {
	tests := []struct {
		text    string
		phrases []string
		found   []string
		n       int
	}{
		{"You must not, must NOT and mustn't", []string{"must", "must not", "mustn t"}, []string{"must not", "mustn t"}, 3},
		{"mustard is not a must", []string{"must"}, []string{"must"}, 1},
		{"", []string{"must"}, nil, 0},
		{"do not touch", []string{"do not touch", "do"}, []string{"do not touch"}, 1},
	}
	for _, tt := range tests {
		found, n := newSpecText(tt.text).find(tt.phrases)
		if !reflect.DeepEqual(found, tt.found) || n != tt.n {
			t.Errorf("find(%q) = %q %d, want %q %d", tt.text, found, n, tt.found, tt.n)
		}
	}
}

func TestIsPathAndIdentifier(t *testing.T) {
	paths := map[string]bool{"calc.go": true, "internal/page": true, "./...": true, "README.md": true, "e.g": false,
		"1.5": false, "v1.2.3": false, "https://x.org/a": false, "end.": false, "a/b/c.txt": true}
	for w, want := range paths {
		if got := isPath(w); got != want {
			t.Errorf("isPath(%q) = %v, want %v", w, got, want)
		}
	}
	ids := map[string]bool{"ParseConfig": true, "max_iterations": true, "Add(2,": true, "Hello": false, "HTTP": false, "_x": false, "word": false}
	for w, want := range ids {
		if got := isIdentifier(w); got != want {
			t.Errorf("isIdentifier(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestSummaryNamesNoMode: the summary says what a score suggests, never a bare shape word that
// reads as how the loop runs ("colleague … runs unattended").
func TestSummaryNamesNoMode(t *testing.T) {
	for _, tc := range []struct {
		total int
		want  string
	}{
		{10, "10/10 (suggests running unattended), workflow debug"},
		{7, "7/10 (suggests colleague checkpoints), workflow debug"},
		{5, "5/10 (suggests colleague checkpoints), workflow debug"},
		{4, "4/10 (only an intent: vague), workflow debug"},
	} {
		s := SpecScore{Total: tc.total, Shape: shapeOf(tc.total), Workflow: workflowDebug}
		if got := s.Summary(); got != tc.want {
			t.Errorf("total %d: %q, want %q", tc.total, got, tc.want)
		}
	}
}
