package loop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/spec"
)

const toolPrompt = "Fix `Add` in calc.go only: it must return a+b and keep its signature. " +
	"Done when `go test ./...` passes, then write <promise>DONE</promise>."

func TestScoreLoopCountsGatesAndPromises(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		total   int
		success string // evidence expected in success ("" for none)
		done    string
	}{
		{"prompt alone", Config{Prompt: "create ok.txt"}, 3, "", ""},
		{"a gate is a measurable check", Config{Prompt: "create ok.txt", Gates: []gates.Gate{{Name: "ok", Run: "test -f ok.txt"}}, Exit: exitGates}, 7, `gate "ok" (test -f ok.txt)`, "exit when every gate passes"},
		{"a promise is an explicit end", Config{Prompt: "task", Promises: []string{"DONE"}, Exit: exitPromise}, 2, "", `promise "DONE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scoreLoop(&tt.cfg)
			if s.Total != tt.total {
				t.Errorf("total %d, want %d: %+v", s.Total, tt.total, s.Dimensions)
			}
			for _, d := range s.Dimensions {
				want := map[string]string{spec.DimSuccess: tt.success, spec.DimDone: tt.done}[d.Name]
				if want != "" && (d.Score != 2 || !strings.Contains(strings.Join(d.Found, "|"), want) || d.Missing != "") {
					t.Errorf("%s: %+v, want score 2 with %s", d.Name, d, want)
				}
			}
		})
	}
}

// TestShapeLoop: the score is recorded as advice and never decides how a loop runs: it runs
// unattended unless the person asks for checkpoints.
func TestShapeLoop(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		asked  string
		shape  string // "" when refused
		spec   string // the recorded score's shape
	}{
		{"a precise spec runs unattended", toolPrompt, "", spec.ShapeTool, spec.ShapeTool},
		{"auto is the default", toolPrompt, shapeAuto, spec.ShapeTool, spec.ShapeTool},
		{"a middling spec runs unattended", "Rename ParseCfg to ParseConfig in the config package only; behaviour must not change.", "", spec.ShapeTool, spec.ShapeColleague},
		{"an intent runs unattended", "make it better", "", spec.ShapeTool, spec.ShapeIntent},
		{"an intent asked to run as a colleague", "make it better", spec.ShapeColleague, spec.ShapeColleague, spec.ShapeIntent},
		{"asking for tool", "make it better", spec.ShapeTool, spec.ShapeTool, spec.ShapeIntent},
		{"asking for colleague on a precise spec", toolPrompt, spec.ShapeColleague, spec.ShapeColleague, spec.ShapeTool},
		{"unknown shape", toolPrompt, "robot", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Prompt: tt.prompt, Promises: []string{"DONE"}, Exit: exitPromise}
			err := shapeLoop(&cfg, tt.asked)
			if tt.shape == "" {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err %v, want a configuration error", err)
				}
				return
			}
			if err != nil || cfg.Shape != tt.shape || cfg.Spec == nil || cfg.Spec.Shape != tt.spec {
				t.Fatalf("shape %q (spec %v), err %v; want %s with a %s score", cfg.Shape, cfg.Spec, err, tt.shape, tt.spec)
			}
		})
	}
}

// TestPrintShapeAdvises: a weak spec's start names what would strengthen it, and a loop that
// only its limit ends says so.
func TestPrintShapeAdvises(t *testing.T) {
	cfg := Config{Prompt: "make it better", Promises: []string{}, MaxIterations: 3, Exit: ExitLimit}
	if err := shapeLoop(&cfg, ""); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	PrintShape(&b, &cfg)
	for _, want := range []string{"runs as a tool, unattended", "advice:", "outcome (say what to do", "git loop score"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("start's shape lines lack %q:\n%s", want, b.String())
		}
	}
}

func colleague(mod func(*Config)) func(*Config) {
	return func(c *Config) {
		c.Shape = spec.ShapeColleague
		if mod != nil {
			mod(c)
		}
	}
}

// TestDecideColleague: a colleague loop pauses after the plan, after each iteration and
// before completion; limits, must-not rules and breakers still come first.
func TestDecideColleague(t *testing.T) {
	tests := []struct {
		name       string
		cfg        func(*Config)
		st         func(*State)
		obs        Observation
		decision   string
		checkpoint string
		reason     string
	}{
		{"after the plan", colleague(nil), nil, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, checkpointPlan, "checkpoint after the plan (iteration 1; unmet: gate test, exit signal)"},
		{"after a later iteration", colleague(nil), func(s *State) { s.Iteration = 3 }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, checkpointIteration, "checkpoint after iteration 4"},
		{"before completion", colleague(nil), nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecidePause, checkpointCompletion, "checkpoint before completion (all gates pass and promise"},
		{"completion at the last iteration", colleague(nil), func(s *State) { s.Iteration = 9 }, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecidePause, checkpointCompletion, "git loop resume x --not-done"},
		{"the limit comes first", colleague(nil), func(s *State) { s.Iteration = 9 }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "", "max iterations reached"},
		{"breakers come first", colleague(nil), func(s *State) { s.Breakers.Unchanged = 2 }, obs("tree0", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "", "no progress"},
		{"a blocked gate comes first", colleague(nil), nil, obs("t1", done, gateResults(gates.StatusBlocked, gates.StatusPass)), DecidePause, "", "blocked"},
		{"a cleared checkpoint is not carried on", colleague(nil), func(s *State) { s.Checkpoint = checkpointPlan; s.Status = StatusActive; s.Iteration = 1 },
			obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, checkpointIteration, "after iteration 2"},
		{"a tool never stops at checkpoints", nil, nil, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "", "unmet"},
		{"an old loop without a shape is a tool", func(c *Config) { c.Shape = "" }, nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, "", "all gates pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := decide(testConfig(tt.cfg), testState(tt.st), tt.obs)
			if v.Decision != tt.decision || v.State.Checkpoint != tt.checkpoint || !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("got %s at %q (%s), want %s at %q (%s)", v.Decision, v.State.Checkpoint, v.Reason, tt.decision, tt.checkpoint, tt.reason)
			}
			if v.Decision == DecidePause && v.State.Status != StatusPaused {
				t.Errorf("paused verdict left status %s", v.State.Status)
			}
		})
	}
}

// TestColleagueCheckpointMessages: the agent keeps what it would have been told; the person
// is told how to confirm.
func TestColleagueCheckpointMessages(t *testing.T) {
	v := decide(testConfig(colleague(nil)), testState(nil), obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)))
	for _, want := range []string{"review your plan", "Make the tests pass.", `gate "test"`} {
		if !strings.Contains(v.ForAgent, want) {
			t.Errorf("agent message lacks %q:\n%s", want, v.ForAgent)
		}
	}
	if !strings.Contains(v.ForUser, "git loop resume x") {
		t.Errorf("user message lacks how to resume: %s", v.ForUser)
	}
}

// startShaped starts a loop with a gate that passes once ok.txt exists, shaped as asked.
func startShaped(t *testing.T, shape string) (*Store, string) {
	t.Helper()
	dir := newTestRepo(t)
	s := openStoreAt(t, dir)
	if _, err := s.Start(StartOptions{Name: "g", Session: "s1", Flags: Settings{
		Prompt: "create ok.txt", Promises: []string{"DONE"}, Shape: shape,
		Gates: []gates.Gate{{Name: "ok", Run: "test -f ok.txt"}},
	}}); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// TestColleagueLoopEndToEnd: plan checkpoint, resume, completion checkpoint, resume
// completes the loop with its report; the breakers' counts survive a checkpoint's resume.
func TestColleagueLoopEndToEnd(t *testing.T) {
	s, dir := startShaped(t, spec.ShapeColleague)
	res := stop(t, s, StopInput{Session: "s1", Message: "plan: create it", MessageKnown: true})
	if res.Verdict.Decision != DecidePause || res.State.Checkpoint != checkpointPlan || res.State.Breakers.SameUnmet != 1 {
		t.Fatalf("first stop: %s at %q, breakers %+v", res.Verdict.Decision, res.State.Checkpoint, res.State.Breakers)
	}
	st, err := s.SetStatus("g", Resume)
	if err != nil || st.Status != StatusActive || st.Checkpoint != "" || st.Breakers.SameUnmet != 1 {
		t.Fatalf("resume at the plan: %+v, %v", st, err)
	}
	writeFile(t, dir, "ok.txt", "ok\n")
	res = stop(t, s, StopInput{Session: "s1", Message: "<promise>DONE</promise>", MessageKnown: true})
	if res.Verdict.Decision != DecidePause || res.State.Checkpoint != checkpointCompletion {
		t.Fatalf("second stop: %s at %q", res.Verdict.Decision, res.State.Checkpoint)
	}
	st, err = s.SetStatus("g", Resume)
	if err != nil || st.Status != StatusCompleted || !strings.Contains(st.Reason, "completion confirmed by user at iteration 2") {
		t.Fatalf("resume at completion: %+v, %v", st, err)
	}
	if out := gitOut(t, dir, "show", "refs/loop/g:report.md"); !strings.Contains(out, "completed") {
		t.Errorf("no report of the completion:\n%s", out)
	}
}

// TestResumeNotDone sends the agent back from the completion checkpoint, and refuses to
// act anywhere else.
func TestResumeNotDone(t *testing.T) {
	s, dir := startShaped(t, spec.ShapeColleague)
	if _, err := s.ResumeNotDone("g", 0); !errors.Is(err, ErrConfig) {
		t.Fatalf("--not-done on an active loop: %v", err)
	}
	writeFile(t, dir, "ok.txt", "ok\n")
	stop(t, s, StopInput{Session: "s1", Message: "<promise>DONE</promise>", MessageKnown: true})
	st, err := s.ResumeNotDone("g", 0)
	if err != nil || st.Status != StatusActive || st.Checkpoint != "" || !strings.Contains(st.Reason, "not confirmed") {
		t.Fatalf("--not-done: %+v, %v", st, err)
	}
	res := stop(t, s, StopInput{Session: "s1", Message: "<promise>DONE</promise>", MessageKnown: true})
	if res.State.Checkpoint != checkpointCompletion || res.State.Iteration != 2 {
		t.Fatalf("the next claim should reach the completion checkpoint again: %+v", res.State)
	}
}

// TestResumeFresh releases the loop from its session for a fresh one, which then claims it.
func TestResumeFresh(t *testing.T) {
	s, _ := startShaped(t, spec.ShapeTool)
	st, err := s.ResumeFresh("g", 0)
	if err != nil || st.Session != "" || st.Status != StatusActive || st.SessionStart.IsZero() {
		t.Fatalf("fresh: %+v, %v", st, err)
	}
	res := stop(t, s, StopInput{Session: "s2", Message: "working", MessageKnown: true})
	if res.Verdict.Decision != DecideContinue || res.State.Session != "s2" {
		t.Fatalf("the fresh session should hold the loop: %s, session %q", res.Verdict.Decision, res.State.Session)
	}
	if _, err := s.SetStatus("g", Cancel); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResumeFresh("g", 0); !errors.Is(err, ErrEnded) {
		t.Fatalf("fresh on a cancelled loop: %v", err)
	}
}

// TestStartRecordsIntentAsAdvice: a vague prompt starts a loop that runs unattended, with its
// score recorded.
func TestStartRecordsIntentAsAdvice(t *testing.T) {
	dir := newTestRepo(t)
	s := openStoreAt(t, dir)
	flags := Settings{Prompt: "make it better", Promises: []string{"DONE"}, Shape: shapeAuto}
	if _, err := s.Start(StartOptions{Name: "v", Flags: flags}); err != nil {
		t.Fatalf("start of an intent: %v", err)
	}
	_, cfg, err := s.Status("v")
	if err != nil || cfg.Shape != spec.ShapeTool || cfg.Spec == nil || cfg.Spec.Shape != spec.ShapeIntent || cfg.Spec.Total != 2 {
		t.Fatalf("recorded shape %q, spec %+v, %v", cfg.Shape, cfg.Spec, err)
	}
}

func writeFile(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestBriefingNamesColleague: a session starting on a colleague loop learns it will pause.
func TestBriefingNamesColleague(t *testing.T) {
	for shape, want := range map[string]bool{spec.ShapeColleague: true, spec.ShapeTool: false} {
		s, _ := startShaped(t, shape)
		text, err := s.Briefing("g", "s1")
		if err != nil || strings.Contains(text, "runs as a colleague") != want {
			t.Errorf("%s: briefing %q, %v", shape, text, err)
		}
	}
}
