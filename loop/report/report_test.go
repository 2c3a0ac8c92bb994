package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/diag"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// TestReportVerdict: the release decision's rules, SHIP / MONITOR / RESEARCH, and why.
func TestReportVerdict(t *testing.T) {
	pass := func(gate string) LayerReport { return LayerReport{Gate: gate, Final: gates.StatusPass, Attempts: 1} }
	done := &loop.State{Status: loop.StatusCompleted}
	tests := []struct {
		name   string
		st     *loop.State
		cfg    loop.Config
		layers []LayerReport
		want   string
		why    string // a substring of one reason ("" for SHIP: none)
	}{
		{"all gates pass", done, loop.Config{}, []LayerReport{pass("build"), pass("test")}, Ship, ""},
		{"paused", &loop.State{Status: loop.StatusPaused, Reason: "no progress"}, loop.Config{}, []LayerReport{pass("build")}, Research, "paused: no progress"},
		{"cancelled", &loop.State{Status: loop.StatusCancelled, Reason: "cancelled by user"}, loop.Config{}, []LayerReport{pass("build")}, Research, "cancelled"},
		{"still running", &loop.State{Status: loop.StatusActive, Iteration: 3}, loop.Config{}, []LayerReport{pass("build")}, Research, "still running (iteration 3)"},
		{"completed with a failing gate", done, loop.Config{}, []LayerReport{pass("build"), {Gate: "test", Final: gates.StatusFail, Attempts: 2}}, Research, "gate test's last run: fail"},
		{"completed with a timed-out gate", done, loop.Config{}, []LayerReport{{Gate: "test", Final: gates.StatusTimeout, Attempts: 1}}, Research, "timeout"},
		{"skipped gate", done, loop.Config{}, []LayerReport{pass("build"), {Gate: "lint", Final: gates.StatusSkip, Attempts: 1}}, Monitor, "gate lint was skipped"},
		{"gate never ran", done, loop.Config{}, []LayerReport{pass("build"), {Gate: "e2e", Final: "not run"}}, Monitor, "gate e2e never ran"},
		{"warnings", done, loop.Config{}, []LayerReport{{Gate: "lint", Final: gates.StatusPass, Attempts: 1, Diagnostics: &diag.Diagnostics{Warnings: 2}}}, Monitor, "passed with 2 warnings"},
		{"skipped tests", done, loop.Config{}, []LayerReport{{Gate: "test", Final: gates.StatusPass, Attempts: 1, Diagnostics: &diag.Diagnostics{Passed: looptest.Intp(9), Skipped: looptest.Intp(1)}}}, Monitor, "1 test skipped"},
		{"clean diagnostics", done, loop.Config{}, []LayerReport{{Gate: "test", Final: gates.StatusPass, Attempts: 1, Diagnostics: &diag.Diagnostics{Passed: looptest.Intp(9), Skipped: looptest.Intp(0)}}}, Ship, ""},
		{"assumed criterion", done, loop.Config{Policy: loop.Policy{Criteria: []loop.Criterion{{Name: "fast", Verify: loop.VerifyAssumption}}}}, []LayerReport{pass("build")}, Monitor, "criterion fast is only assumed"},
		{"observed criterion", done, loop.Config{Policy: loop.Policy{Criteria: []loop.Criterion{{Name: "docs", Verify: loop.VerifyObservation}}}}, []LayerReport{pass("build")}, Ship, ""},
		{"no gate", done, loop.Config{}, nil, Monitor, "no gate checked the work"},
		{"final tree judged", &loop.State{Status: loop.StatusCompleted, Tree: "aa", JudgedTree: "aa"}, loop.Config{}, []LayerReport{pass("build")}, Ship, ""},
		{"final tree not judged", &loop.State{Status: loop.StatusCompleted, Name: "x", Tree: "bb", JudgedTree: "aa"}, loop.Config{}, []LayerReport{pass("build")}, Research, "not the tree the gates were last judged on"},
		{"failure outranks a skip", done, loop.Config{}, []LayerReport{{Gate: "lint", Final: gates.StatusSkip, Attempts: 1}, {Gate: "test", Final: gates.StatusBlocked, Attempts: 1}}, Research, "blocked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := verdict(&tt.cfg, tt.st, tt.layers, nil)
			if got != tt.want {
				t.Fatalf("verdict = %s %q, want %s", got, why, tt.want)
			}
			if tt.why == "" && len(why) != 0 || tt.why != "" && !strings.Contains(strings.Join(why, "\n"), tt.why) {
				t.Fatalf("reasons %q, want one with %q", why, tt.why)
			}
		})
	}
}

// TestReportDefects follows defects through iterations: found, seen again, fixed by a pass,
// reopened, and never fixed by a skip.
func TestReportDefects(t *testing.T) {
	fail := func(fp string) loop.GateResult {
		return loop.GateResult{Result: gates.Result{Name: "test", Layer: 2, Status: gates.StatusFail, Fingerprint: fp, Tail: "ok a\n--- FAIL: Test" + fp + "\nFAIL"}}
	}
	pass := loop.GateResult{Result: gates.Result{Name: "test", Layer: 2, Status: gates.StatusPass}}
	skip := loop.GateResult{Result: gates.Result{Name: "test", Layer: 2, Status: gates.StatusSkip}}
	tests := []struct {
		name string
		runs []loop.GateResult // iteration i+1
		want []Defect
	}{
		{"found then fixed", []loop.GateResult{fail("A"), pass},
			[]Defect{{FirstSeen: 1, LastSeen: 1, Occurrences: 1, FixedAt: 2}}},
		{"seen twice, open", []loop.GateResult{fail("A"), fail("A")},
			[]Defect{{FirstSeen: 1, LastSeen: 2, Occurrences: 2}}},
		{"a skip fixes nothing", []loop.GateResult{fail("A"), skip},
			[]Defect{{FirstSeen: 1, LastSeen: 1, Occurrences: 1}}},
		{"two defects, one pass fixes both", []loop.GateResult{fail("A"), fail("B"), pass},
			[]Defect{{FirstSeen: 1, LastSeen: 1, Occurrences: 1, FixedAt: 3}, {FirstSeen: 2, LastSeen: 2, Occurrences: 1, FixedAt: 3}}},
		{"reopened", []loop.GateResult{fail("A"), pass, fail("A")},
			[]Defect{{FirstSeen: 1, LastSeen: 3, Occurrences: 2, Reopened: 1}}},
		{"reopened and fixed again", []loop.GateResult{fail("A"), pass, fail("A"), pass},
			[]Defect{{FirstSeen: 1, LastSeen: 3, Occurrences: 2, Reopened: 1, FixedAt: 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l defectLog
			for i, g := range tt.runs {
				l.record(i+1, g)
			}
			d := l.summary()
			if len(d.Items) != len(tt.want) {
				t.Fatalf("got %d defects %+v, want %d", len(d.Items), d.Items, len(tt.want))
			}
			fixed := 0
			for i, w := range tt.want {
				g := d.Items[i]
				if g.FirstSeen != w.FirstSeen || g.LastSeen != w.LastSeen || g.Occurrences != w.Occurrences || g.FixedAt != w.FixedAt || g.Reopened != w.Reopened {
					t.Errorf("defect %d = %+v, want %+v", i, g, w)
				}
				if !strings.HasPrefix(g.Summary, "--- FAIL: Test") || g.Gate != "test" || g.Layer != 2 {
					t.Errorf("defect %d summary %q, gate %s layer %d", i, g.Summary, g.Gate, g.Layer)
				}
				if w.FixedAt > 0 {
					fixed++
				}
			}
			if d.Found["test"] != len(tt.want) || d.Resolved["test"] != fixed {
				t.Errorf("found %v resolved %v, want %d and %d", d.Found, d.Resolved, len(tt.want), fixed)
			}
		})
	}
}

// TestReportFailureLine picks the line of a gate's output that names the failure.
func TestReportFailureLine(t *testing.T) {
	tests := []struct{ tail, want string }{
		{"", ""},
		{"\n  \n", ""},
		{"ok.txt is missing\n", "ok.txt is missing"},
		{"=== RUN TestA\n--- FAIL: TestA (0.00s)\n    a_test.go:9: got 1\nFAIL\n", "--- FAIL: TestA (0.00s)"},
		{"compiling\n./a.go:3:2: undefined: x\n", "./a.go:3:2: undefined: x"},
		{"step one\nstep two\n", "step two"},
		{"\tERROR\ttabbed\x1b[0m\r\n", "ERROR tabbed[0m"},
		{strings.Repeat("é", 300) + " error", strings.Repeat("é", maxSummary-1) + "…"},
	}
	for _, tt := range tests {
		if got := failureLine(tt.tail); got != tt.want {
			t.Errorf("failureLine(%q) = %q, want %q", tt.tail, got, tt.want)
		}
	}
}

// FuzzReportFailureLine: whatever a gate prints, the summary is one trimmed line of valid
// UTF-8 within the bound.
func FuzzReportFailureLine(f *testing.F) {
	for _, s := range []string{"", "--- FAIL: TestA\n", "a\nb\r\n", "\xff\xfe error", strings.Repeat("x", 500)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tail string) {
		got := failureLine(tail)
		if strings.ContainsAny(got, "\n\r\t\x00") || !isValidUTF8(got) || len([]rune(got)) > maxSummary || strings.TrimSpace(got) != got && !strings.HasSuffix(got, "…") {
			t.Fatalf("failureLine(%q) = %q", tail, got)
		}
	})
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "") == s }

// reportLoop runs loop g to completion through the hook path: a false claim (the gate
// fails), then the fix.
func reportLoop(t *testing.T) (*loop.Store, string) {
	t.Helper()
	s, dir := startReported(t, "")
	stopReported(t, s, loop.StopInput{Message: "done <script>alert(1)</script>\n<promise>DONE</promise>"})
	os.WriteFile(filepath.Join(dir, "fixed.txt"), []byte("one\ntwo\n"), 0o666)
	stopReported(t, s, loop.StopInput{Message: "<promise>DONE</promise>"})
	return s, dir
}

// reportOfLoop is the report, from its history, of reportLoop's loop, and its repository.
func reportOfLoop(t *testing.T) (Report, string) {
	t.Helper()
	s, dir := reportLoop(t)
	h, err := s.OpenHistory("g")
	if err != nil {
		t.Fatal(err)
	}
	r, err := FromHistory(h)
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// TestReportFromHistory: the report of a real loop carries every iteration, the gate's runs,
// the defect found and fixed, and each iteration's diffstat as git counts it.
func TestReportFromHistory(t *testing.T) {
	r, dir := reportOfLoop(t)
	if r.Release != Ship || len(r.Timeline) != 3 || len(r.Layers) != 1 || len(r.Layers[0].Runs) != 2 {
		t.Fatalf("report: %s, %d steps, layers %+v", r.Release, len(r.Timeline), r.Layers)
	}
	if runs := r.Layers[0].Runs; runs[0].Status != gates.StatusFail || runs[0].Iteration != 1 || runs[1].Status != gates.StatusPass {
		t.Errorf("runs = %+v", runs)
	}
	if d := r.Defects.Items; len(d) != 1 || d[0].Summary != "fixed.txt is missing" || d[0].FixedAt != 2 {
		t.Errorf("defects = %+v", d)
	}
	// git itself counts the second iteration's change.
	snap1, snap2 := looptest.GitOut(t, dir, "rev-parse", "refs/loop/g~1^2"), looptest.GitOut(t, dir, "rev-parse", "refs/loop/g^2")
	numstat := looptest.GitOut(t, dir, "diff", "--numstat", strings.TrimSpace(snap1), strings.TrimSpace(snap2))
	d := r.Timeline[2].Diffstat
	if d == nil || d.Changed != 1 || strings.TrimSpace(numstat) != "2\t0\tfixed.txt" || d.Files[0].Path != "fixed.txt" || d.Added != 2 || d.Deleted != 0 {
		t.Errorf("iteration 2 diffstat %+v, git says %q", d, numstat)
	}
	if d := r.Timeline[1].Diffstat; d == nil || d.Changed != 0 {
		t.Errorf("iteration 1 changed nothing, diffstat %+v", d)
	}
	if m := r.Timeline[1].Message; !strings.Contains(m, "<script>") {
		t.Errorf("iteration 1's message is not kept: %q", m)
	}
}

// TestReportJSONIsYAML: the JSON and YAML reports are the same record.
func TestReportJSONIsYAML(t *testing.T) {
	r, _ := reportOfLoop(t)
	js, err := r.Render(formatJSON)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := r.Render(formatYAML)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatalf("JSON report is not valid JSON: %v", err)
	}
	if err := yaml.Unmarshal(ys, &fromYAML); err != nil {
		t.Fatalf("YAML report is not valid YAML: %v", err)
	}
	if !reflect.DeepEqual(fromJSON, normalize(t, fromYAML)) {
		t.Fatalf("JSON and YAML differ:\n%s\n%s", js, ys)
	}
	for _, key := range []string{"execution", "iterations", "layers", "defects", "rework", "release_decision"} {
		if _, ok := fromJSON.(map[string]any)[key]; !ok {
			t.Errorf("the record has no %s", key)
		}
	}
}

// normalize passes a YAML value through JSON, so numbers and maps compare with JSON's.
func normalize(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(data, &out)
	return out
}

// longReport is a report of n iterations that alternate between failing and passing.
func longReport(n int) Report {
	cfg := &loop.Config{Prompt: "p", Gates: []gates.Gate{{Name: "build"}, {Name: "test"}, {Name: "lint"}}}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := &loop.State{Name: "long", Status: loop.StatusPaused, Reason: "iteration limit", Iteration: n, MaxIterations: n, StartedAt: start, UpdatedAt: start.Add(time.Duration(n) * time.Minute)}
	iters := []loop.Iteration{{Number: 0, Kind: "start", At: start}}
	for i := 1; i <= n; i++ {
		status, layer := gates.StatusPass, ""
		if i%3 != 0 {
			status, layer = gates.StatusFail, "test"
		}
		cov := float64(i%100) + 0.5
		iters = append(iters, loop.Iteration{Number: i, Kind: "stop", At: start.Add(time.Duration(i) * time.Minute), Decision: loop.DecideContinue, Layer: layer, Duration: time.Second,
			Gates: []loop.GateResult{{Result: gates.Result{Name: "build", Layer: 1, Status: gates.StatusPass}},
				{Result: gates.Result{Name: "test", Layer: 2, Status: status, Fingerprint: "f", Tail: "--- FAIL: TestX", Diagnostics: &diag.Diagnostics{Passed: looptest.Intp(i), Failed: looptest.Intp(i % 3), Coverage: &cov}}},
				{Result: gates.Result{Name: "lint", Layer: 3, Status: gates.StatusSkip}}}})
	}
	return buildReport(cfg, st, iters)
}

// TestReportMarkdownLongLoop: a long loop's matrix in report.md stays short, with its first
// and last rows; a short one lists every judged iteration.
func TestReportMarkdownLongLoop(t *testing.T) {
	for _, tt := range []struct {
		n        int
		rows     int
		elided   bool
		lastLine string
	}{
		{n: 1, rows: 1, lastLine: "| 1 | continue | ✓ | ✗ fail | – skip | · |"},
		{n: 500, rows: mdMatrixHead + mdMatrixTail + 1, elided: true, lastLine: "| 499–500 | continue | ✓ | ✗ fail | – skip | · |"},
	} {
		md := longReport(tt.n).Markdown()
		matrix := md[strings.Index(md, "## Gate matrix"):strings.Index(md, "## Defects")]
		rows := strings.Count(matrix, "\n| ") - 1 // less the header
		if rows != tt.rows || strings.Contains(matrix, "more rows") != tt.elided || !strings.Contains(matrix, tt.lastLine+"\n") {
			t.Errorf("%d iterations: %d rows (want %d), elided %v:\n%s", tt.n, rows, tt.rows, tt.elided, matrix)
		}
		rework := md[strings.Index(md, "## Rework"):strings.Index(md, "\n---\n")]
		if lines := strings.Count(rework, "\n- "); tt.n == 500 && (lines != 2*mdReworkShown+1 || !strings.Contains(rework, "- … 314 more\n")) {
			t.Errorf("%d iterations: %d rework lines:\n%s", tt.n, lines, rework)
		}
		if !strings.Contains(md, "**Verdict: RESEARCH**") || !strings.Contains(md, "- the loop is paused: iteration limit") {
			t.Errorf("%d iterations: verdict footer:\n%s", tt.n, md[strings.Index(md, "---"):])
		}
	}
}

// TestReportMarkdownSections: the summary box, gate matrix, defects and verdict footer of
// a completed loop.
func TestReportMarkdownSections(t *testing.T) {
	r, _ := reportOfLoop(t)
	md := r.Markdown()
	for _, want := range []string{
		"# Loop g: SHIP\n", "| verdict | **SHIP** |", "| gates passing | 1 of 1 |", "| defects | 1 found, 1 fixed |",
		"| 1 | fixed | pass | 2 | 1 | 1 | 1 |",
		"| iteration | decision | fixed | changes |", "| 1 | continue | ✗ fail | · |", "| 2 | complete | ✓ | 1 file, +2 −0 |",
		"- **fixed** (layer 1, fail): `fixed.txt is missing` — found at iteration 1; fixed at iteration 2",
		"**Verdict: SHIP** — every gate passes",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// TestCheckReportFormat accepts the four formats and names them for anything else.
func TestCheckReportFormat(t *testing.T) {
	for _, f := range ReportFormats {
		if err := CheckReportFormat(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range []string{"", "pdf", "MD", "markdown"} {
		if err := CheckReportFormat(f); err == nil || !strings.Contains(err.Error(), "md, yaml, json, html") {
			t.Errorf("%q: %v", f, err)
		}
	}
}
