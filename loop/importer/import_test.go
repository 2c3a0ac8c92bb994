package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// Fixtures in the shapes the tools write (see the comments on each parser for the source).
const (
	ralphFixture = `---
active: true
iteration: 4
max_iterations: 20
completion_promise: "LOGIN FIXED"
started_at: "2026-01-02T03:04:05Z"
---

Fix the login redirect.
Add a test.
`
	stravinskyFixture = `---
iteration_count: 3
max_iterations: 15
completion_promise: "ALL_FEATURES_IMPLEMENTED"
active: true
started_at: 2026-01-08T12:34:56Z
last_updated: 2026-01-08T12:35:22Z
---
Implement the Redis caching layer with tests.

## Iteration 1
Added RedisClient.

## Iteration 2
Added decorators.
`
	safeRustFixture = `{
  "active": true,
  "started": "2024-01-15T10:00:00Z",
  "iteration": 3,
  "max_iterations": 10,
  "current_layer": 5,
  "completion_promise": "ALL_GATES_PASS",
  "gates_passed": [1, 2, 3, 4],
  "gates_remaining": [5, 6, 7, 8, 9],
  "rework_count": 1,
  "last_failure": {"layer": 5, "reason": "clippy::unwrap_used violation", "routed_to": 4},
  "safety_limits": {"max_iterations": 12, "max_rework_per_layer": 3, "timeout_minutes": 60, "escalation_on_limit": "PAUSE_FOR_HUMAN"}
}`
	loopStateFixture = `{
  "spec": "Add validation to the auth module",
  "criteria": ["test passes", "no lint errors"],
  "criteriaStatus": {"test passes": true, "no lint errors": {"met": false, "verification": "execution output"}},
  "steps": ["schema", "validator"],
  "completedSteps": ["schema"],
  "remainingSteps": ["validator"],
  "iteration": 2,
  "status": "in_progress",
  "circuitBreaker": {"stuckCount": 1, "stuckThreshold": 4},
  "budget": 25
}`
	moaiFixture = `{
  "active": true,
  "iteration": 3,
  "max_iterations": 10,
  "last_error_count": 2,
  "last_warning_count": 5,
  "files_modified": ["src/auth.py", "src/user.py"],
  "start_time": 1704380400.0,
  "completion_reason": null
}`
)

func intp(n int) *int { return looptest.Intp(n) }

// openImportStore opens the store of the repository in dir.
func openImportStore(t *testing.T, dir string) *loop.Store {
	t.Helper()
	s, err := loop.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stopImported is a stop of loop g whose message is known.
func stopImported(t *testing.T, s *loop.Store, in loop.StopInput) *loop.StopResult {
	t.Helper()
	in.MessageKnown = true
	r, err := s.Stop(context.Background(), "g", in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestParseImportFormats: what each format carries over and lists as not carried over.
func TestParseImportFormats(t *testing.T) {
	tests := []struct {
		path, data string
		want       Imported // Format, Prompt prefix, Promises, Markers, MaxIterations, Iteration, Limits, MaxDuration
		criteria   []string
		skipped    []string // substrings of not-carried lines, in order
	}{
		{".claude/ralph-loop.local.md", ralphFixture,
			Imported{Format: formatRalph, Prompt: "Fix the login redirect.\nAdd a test.", Promises: []string{"LOGIN FIXED"}, MaxIterations: intp(20), Iteration: 4},
			nil, []string{"iteration: 4", "started_at"}},
		{".stravinsky/continuation-loop.md", stravinskyFixture,
			Imported{Format: formatStravinsky, Prompt: "Implement the Redis caching layer with tests.", Promises: []string{"ALL_FEATURES_IMPLEMENTED"}, MaxIterations: intp(15), Iteration: 3},
			nil, []string{"2 iteration notes", "anywhere in a reply", "iteration_count: 3", "started_at", "last_updated"}},
		{".safe-rust/loop-state.json", safeRustFixture,
			Imported{Format: formatSafeRust, Prompt: "Continue the safe-rust verification loop", PromptDerived: true, Promises: []string{"ALL_GATES_PASS"}, MaxIterations: intp(10), Iteration: 3,
				Limits: loop.Limits{Rework: 3}, MaxDuration: "60m"},
			nil, []string{"safety_limits.max_iterations: \"12\" (max_iterations 10 wins)", "safety_limits.escalation_on_limit", `gates_passed: "1, 2, 3, 4"`, "slash commands", "rework_count: 1", "iteration: 3", "started"}},
		{".loop/state.json", loopStateFixture,
			Imported{Format: formatLoopState, Prompt: "Add validation to the auth module", Markers: []string{"<loop-complete>"}, Iteration: 2, Limits: loop.Limits{Stuck: 4}},
			[]string{"test passes", "no lint errors"},
			[]string{`criterion "test passes" was met`, "circuitBreaker.stuckCount: \"1\"", "steps:", "completedSteps:", "remainingSteps:", "iteration: 2", `budget: "25"`}},
		{".moai/cache/.moai_loop_state.json", moaiFixture,
			Imported{Format: formatMoAI, Prompt: "Continue the MoAI feedback loop", PromptDerived: true, Markers: moaiMarkers, MaxIterations: intp(10), Iteration: 3},
			nil, []string{"ralph.yaml", "iteration: 3", "start_time"}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Format, func(t *testing.T) {
			im, err := parseImport(tt.path, []byte(tt.data), "")
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want
			if im.Format != w.Format || !strings.HasPrefix(im.Prompt, w.Prompt) || im.PromptDerived != w.PromptDerived || im.Iteration != w.Iteration ||
				!reflect.DeepEqual(im.Promises, w.Promises) || !reflect.DeepEqual(im.Markers, w.Markers) || !reflect.DeepEqual(im.MaxIterations, w.MaxIterations) ||
				im.Limits != w.Limits || im.MaxDuration != w.MaxDuration {
				t.Errorf("got %+v\nwant %+v", im, w)
			}
			var names []string
			for _, c := range im.Criteria {
				names = append(names, c.Name)
			}
			if !reflect.DeepEqual(names, tt.criteria) {
				t.Errorf("criteria %q, want %q", names, tt.criteria)
			}
			checkSkipped(t, im.NotCarried, tt.skipped)
		})
	}
}

// checkSkipped wants each substring in a later line than the previous one.
func checkSkipped(t *testing.T, lines, want []string) {
	t.Helper()
	i := 0
	for _, w := range want {
		for i < len(lines) && !strings.Contains(lines[i], w) {
			i++
		}
		if i == len(lines) {
			t.Errorf("not carried over: no line with %q (in order) in\n%s", w, strings.Join(lines, "\n"))
			return
		}
		i++
	}
}

// TestParseImportDetails: edge cases of single fields.
func TestParseImportDetails(t *testing.T) {
	tests := []struct {
		name, path, data string
		check            func(*Imported) bool
	}{
		{"ralph null promise", "ralph-loop.local.md", "---\ncompletion_promise: null\nmax_iterations: 5\n---\ntask\n",
			func(im *Imported) bool { return len(im.Promises) == 0 && *im.MaxIterations == 5 }},
		{"ralph unlimited is listed, not carried", "ralph-loop.local.md", "---\nmax_iterations: 0\n---\ntask\n",
			func(im *Imported) bool {
				return im.MaxIterations == nil && strings.Contains(strings.Join(im.NotCarried, "\n"), "--unlimited")
			}},
		{"ralph CRLF and BOM", "ralph-loop.local.md", "\ufeff---\r\ncompletion_promise: \"X\"\r\n---\r\ntask\r\nmore\r\n",
			func(im *Imported) bool { return im.Prompt == "task\nmore" && im.Promises[0] == "X" }},
		{"ralph unquoted number promise is text", "ralph-loop.local.md", "---\ncompletion_promise: 42\n---\ntask\n",
			func(im *Imported) bool { return im.Promises[0] == "42" }},
		{"ralph inactive is listed", "ralph-loop.local.md", "---\nactive: false\n---\ntask\n",
			func(im *Imported) bool { return strings.Contains(strings.Join(im.NotCarried, "\n"), "active: false") }},
		{"loop-state criteria from status only, sorted", ".loop/state.json", `{"spec":"s","criteriaStatus":{"b":false,"a":true}}`,
			func(im *Imported) bool {
				return len(im.Criteria) == 2 && im.Criteria[0].Name == "a" && im.Criteria[0].Met
			}},
		{"loop-state completed status listed", ".loop/state.json", `{"spec":"s","status":"completed"}`,
			func(im *Imported) bool {
				return strings.Contains(strings.Join(im.NotCarried, "\n"), `status: "completed"`)
			}},
		{"content sniffing: safe-rust anywhere", "state-backup.json", `{"current_layer": 2}`,
			func(im *Imported) bool {
				return im.Format == formatSafeRust && strings.Contains(im.Prompt, "Current layer: 2.")
			}},
		{"ralph per-session file name", ".claude/ralph-loop-abc123.local.md", "---\nactive: true\n---\ntask\n",
			func(im *Imported) bool { return im.Format == formatRalph && im.Prompt == "task" }},
		{"content sniffing: stravinsky", "notes.md", "---\niteration_count: 1\n---\ngoal\n",
			func(im *Imported) bool { return im.Format == formatStravinsky && im.Prompt == "goal" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, err := parseImport(tt.path, []byte(tt.data), "")
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(im) {
				t.Errorf("got %+v", im)
			}
		})
	}
}

// TestParseImportMalformed: each bad file is one line naming the file, the problem and the fix.
func TestParseImportMalformed(t *testing.T) {
	tests := []struct{ name, path, data, format, want string }{
		{"bad yaml", ".stravinsky/continuation-loop.md", "---\nmax_iterations: [\n---\ntask\n", "", "YAML front matter does not parse"},
		{"yaml line is the file's", ".stravinsky/continuation-loop.md", "---\nactive: true\nmax: 1\n  bad: 2\n---\ntask\n", "", "(yaml: line 4: mapping values"},
		{"no front matter", ".claude/ralph-loop.local.md", "just a prompt\n", "", "no front matter"},
		{"unclosed front matter", ".claude/ralph-loop.local.md", "---\nactive: true\n", "", "no front matter"},
		{"yaml list", ".stravinsky/continuation-loop.md", "---\n- a\n---\ntask\n", "", "does not parse"},
		{"ralph max not read by the hook", ".claude/ralph-loop.local.md", "---\nmax_iterations: [\n---\ntask\n", "", `max_iterations is "[", not a whole number`},
		{"ralph key twice", ".claude/ralph-loop.local.md", "---\ncompletion_promise: \"A\"\nactive: true\ncompletion_promise: \"B\"\n---\ntask\n", "", "completion_promise is set on lines 2 and 4"},
		{"ralph no key lines", ".claude/ralph-loop.local.md", "---\n- a\n---\ntask\n", "", "front matter is empty"},
		{"empty front matter", ".claude/ralph-loop.local.md", "---\n---\ntask\n", "", "front matter is empty"},
		{"empty prompt", ".claude/ralph-loop.local.md", "---\nactive: true\n---\n\n  \n", "", "records no prompt"},
		{"max not a number", ".claude/ralph-loop.local.md", "---\nmax_iterations: many\n---\ntask\n", "", `max_iterations is "many", not a whole number`},
		{"negative max", ".claude/ralph-loop.local.md", "---\nmax_iterations: -3\n---\ntask\n", "", "not a whole number"},
		{"promise a list", ".stravinsky/continuation-loop.md", "---\ncompletion_promise: [a]\n---\ntask\n", "", "completion_promise is a list"},
		{"stravinsky prompt overwritten", ".stravinsky/continuation-loop.md", "---\niteration_count: 2\n---\n\nIteration 2 in progress", "", "replaced it"},
		{"invalid json", ".safe-rust/loop-state.json", "{\n\"iteration\": 3,\n}", "", "invalid JSON at line 3"},
		{"json cut short", ".loop/state.json", `{"spec": "x"`, "", "empty or cut short"},
		{"json array", ".loop/state.json", `[1]`, "", "not an object"},
		{"json trailing", ".moai/cache/.moai_loop_state.json", `{"iteration":1} {}`, "", "more data follows"},
		{"loop-state no spec", ".loop/state.json", `{"criteria":["a"]}`, "", "records no spec"},
		{"safe-rust empty", ".safe-rust/loop-state.json", `{}`, "", "records nothing of a safe-rust loop"},
		{"moai empty", ".moai_loop_state.json", `{"x":1}`, "", "records nothing of a MoAI loop"},
		{"breaker threshold zero", ".loop/state.json", `{"spec":"s","circuitBreaker":{"stuckThreshold":0}}`, "", "not a number ≥ 1"},
		{"unknown", "notes.txt", "hello", "", "not a loop state file git-loop knows"},
		{"unknown format flag", "notes.txt", "hello", "yaml", `unknown format "yaml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseImport(tt.path, []byte(tt.data), tt.format)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !errors.Is(err, ErrImport) || !errors.Is(err, loop.ErrConfig) || !strings.Contains(msg, tt.path) ||
				!strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || !strings.Contains(msg, "; ") {
				t.Errorf("error %q: want one line with %q, the file and a fix, ErrImport and ErrConfig", msg, tt.want)
			}
		})
	}
}

// TestImportStartsThroughStart: an import starts a real loop with the file's settings,
// flags win, the file is untouched, and a refused import writes no ref.
func TestImportStartsThroughStart(t *testing.T) {
	dir := looptest.NewRepo(t)
	s := openImportStore(t, dir)
	path := filepath.Join(dir, ".claude", "ralph-loop.local.md")
	os.MkdirAll(filepath.Dir(path), 0o777)
	os.WriteFile(path, []byte(ralphFixture), 0o666)
	before, _ := os.ReadFile(path)

	// No way to complete after overriding: refused, nothing written.
	if _, err := Import(s, ImportOptions{File: path, Format: "nonsense"}); !errors.Is(err, ErrImport) {
		t.Fatalf("bad format: %v", err)
	}
	if refs := looptest.GitOut(t, dir, "for-each-ref", "refs/loop"); refs != "" {
		t.Fatalf("a refused import wrote refs: %s", refs)
	}
	res, err := Import(s, ImportOptions{File: path, DryRun: true})
	if err != nil || res.State != nil || res.Config.MaxIterations != 20 {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if refs := looptest.GitOut(t, dir, "for-each-ref", "refs/loop"); refs != "" {
		t.Fatalf("a dry run wrote refs: %s", refs)
	}
	n := 7
	res, err = Import(s, ImportOptions{File: path, StartOptions: loop.StartOptions{Name: "imp", Flags: loop.Settings{MaxIterations: &n}}})
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, err := s.Status("imp")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxIterations != 7 || cfg.Prompt != "Fix the login redirect.\nAdd a test." || !reflect.DeepEqual(cfg.Promises, []string{"LOGIN FIXED"}) || res.State.Iteration != 0 {
		t.Errorf("imported loop: %+v", cfg)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the imported file changed")
	}
	// git itself sees the loop and its loop.json.
	if out := looptest.GitOut(t, dir, "show", "refs/loop/imp:loop.json"); !strings.Contains(out, `"LOGIN FIXED"`) {
		t.Errorf("loop.json: %s", out)
	}
}

// TestImportedCriteriaComplete: a moo.md loop keeps its dual exit: every criterion reported
// met in the status block and <loop-complete>; the marker alone does not complete it.
func TestImportedCriteriaComplete(t *testing.T) {
	dir := looptest.NewRepo(t)
	s := openImportStore(t, dir)
	path := filepath.Join(dir, ".loop", "state.json")
	os.MkdirAll(filepath.Dir(path), 0o777)
	os.WriteFile(path, []byte(loopStateFixture), 0o666)
	if _, err := Import(s, ImportOptions{File: path, StartOptions: loop.StartOptions{Name: "g"}}); err != nil {
		t.Fatal(err)
	}
	r := stopImported(t, s, loop.StopInput{Message: "All done.\n<loop-complete>"})
	if r.Verdict.Decision != loop.DecideContinue || !strings.Contains(r.Verdict.ForAgent, "criterion no lint errors") {
		t.Fatalf("marker alone: %s\n%s", r.Verdict.Decision, r.Verdict.ForAgent)
	}
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("progress\n"), 0o666)
	msg := "---LOOP_STATUS---\nEXIT_SIGNAL: true\nCRITERIA: {\"test passes\": true, \"no lint errors\": true}\n---END_STATUS---\n<loop-complete>"
	if r = stopImported(t, s, loop.StopInput{Message: msg}); r.Verdict.Decision != loop.DecideComplete {
		t.Fatalf("criteria met and marker: %s\n%s", r.Verdict.Decision, r.Verdict.ForAgent)
	}
}

// TestImportNullPromiseRunsToItsLimit: a ralph loop without a promise imports as the plugin
// runs it, bounded by its limit (the default when the file gives none).
func TestImportNullPromiseRunsToItsLimit(t *testing.T) {
	dir := looptest.NewRepo(t)
	s := openImportStore(t, dir)
	path := filepath.Join(t.TempDir(), "ralph-loop.local.md")
	os.WriteFile(path, []byte("---\ncompletion_promise: null\n---\nrefactor\n"), 0o666)
	if _, err := Import(s, ImportOptions{File: path}); err != nil {
		t.Fatal(err)
	}
	_, cfg, err := s.Status("main")
	if err != nil || cfg.Exit != loop.ExitLimit || len(cfg.Promises) != 0 || cfg.MaxIterations != loop.DefaultMaxIterations {
		t.Fatalf("imported exit %q, promises %q, limit %d, %v", cfg.Exit, cfg.Promises, cfg.MaxIterations, err)
	}
}
