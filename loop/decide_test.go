package loop

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop/checks"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/spec"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testConfig(mod func(*Config)) *Config {
	c := &Config{
		Name: "x", Prompt: "Make the tests pass.", Promises: []string{"DONE"}, Exit: exitBoth, MaxIterations: 10,
		Gates:     []gates.Gate{{Name: "build", Run: "go build ./..."}, {Name: "test", Run: "go test ./..."}},
		StartedAt: t0,
	}
	if mod != nil {
		mod(c)
	}
	return c
}

func testState(mod func(*State)) *State {
	s := &State{Name: "x", Status: StatusActive, Iteration: 0, MaxIterations: 10, Tree: "tree0", StartedAt: t0}
	if mod != nil {
		mod(s)
	}
	return s
}

func gateResults(statuses ...string) []GateResult {
	names := []string{"build", "test", "lint"}
	var out []GateResult
	for i, st := range statuses {
		out = append(out, GateResult{Result: gates.Result{Name: names[i], Layer: i + 1, Status: st, Tail: names[i] + " output: " + st, Fingerprint: names[i] + st}})
	}
	return out
}

func obs(tree, msg string, g []GateResult) Observation {
	return Observation{At: t0.Add(time.Minute), Tree: tree, Message: msg, MessageKnown: true, Gates: g}
}

const done = "All fixed.\n<promise>DONE</promise>"

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		cfg      func(*Config)
		st       func(*State)
		obs      Observation
		decision string
		reason   string // substring
	}{
		{"paused loop lets the agent stop", nil, func(s *State) { s.Status = StatusPaused }, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), decideAllow, "paused"},
		{"cancelled loop", nil, func(s *State) { s.Status = StatusCancelled }, obs("t1", done, nil), DecideCancelled, "cancelled"},
		{"complete: gates pass and promise", nil, nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, "all gates pass and promise"},
		{"weakened checks: sent back", nil, nil, func() Observation {
			o := obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass))
			o.Weakened = []checks.Weakening{{Kind: checks.KindSkipAdded, Key: "k", Why: "t.Skip added"}}
			return o
		}(), DecideContinue, "the checks as strong as at start (1 weakening)"},
		{"weakened checks, allowed: complete", nil, nil, func() Observation {
			o := obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass))
			o.Weakened = []checks.Weakening{{Kind: checks.KindSkipAdded, Key: "k", Why: "t.Skip added", Allowed: "loop.testEdits = allow"}}
			return o
		}(), DecideComplete, "1 weakening(s) of the checks allowed (loop.testEdits = allow)"},
		{"weakened checks: policy promise still sent back", func(c *Config) { c.Exit = exitPromise }, nil, func() Observation {
			o := obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass))
			o.Weakened = []checks.Weakening{{Kind: checks.KindTestRemoved, Key: "k", Why: "TestAdd removed"}}
			return o
		}(), DecideContinue, "weakening"},
		{"skip counts as not failing", nil, nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusSkip)), DecideComplete, "the gates pass (1 passed; skipped: test) and promise"},
		{"every gate skipped verifies nothing", nil, nil, obs("t1", done, gateResults(gates.StatusSkip, gates.StatusSkip)), DecideContinue, unmetAllSkipped},
		{"every gate skipped: policy gates", func(c *Config) { c.Exit = exitGates }, nil, obs("t1", "", gateResults(gates.StatusSkip, gates.StatusSkip)), DecideContinue, unmetAllSkipped},
		{"every gate skipped: policy either needs the promise", func(c *Config) { c.Exit = exitEither }, nil, obs("t1", "", gateResults(gates.StatusSkip, gates.StatusSkip)), DecideContinue, "exit signal"},
		{"every gate skipped: policy either completes on the promise", func(c *Config) { c.Exit = exitEither }, nil, obs("t1", done, gateResults(gates.StatusSkip, gates.StatusSkip)), DecideComplete, "promise"},
		{"false claim: promise but a gate fails", nil, nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "gate test"},
		{"blocked gate pauses for a person", nil, nil, obs("t1", done, gateResults(gates.StatusBlocked, gates.StatusPass)), DecidePause, "gate build is blocked"},
		{"no message: the gates decide", nil, nil, func() Observation {
			o := obs("t1", "", gateResults(gates.StatusPass, gates.StatusPass))
			o.MessageKnown = false
			return o
		}(), DecideComplete, "all gates pass"},
		{"no message and no gates: cannot complete", func(c *Config) { c.Gates = nil; c.Exit = exitPromise }, nil, func() Observation { o := obs("t1", "", nil); o.MessageKnown = false; return o }(), DecideContinue, "exit signal"},
		{"gates pass, no promise", nil, nil, obs("t1", "I think it works", gateResults(gates.StatusPass, gates.StatusPass)), DecideContinue, "exit signal"},
		{"promise in a code block does not count", nil, nil, obs("t1", "```\n<promise>DONE</promise>\n```", gateResults(gates.StatusPass, gates.StatusPass)), DecideContinue, "exit signal"},
		{"policy gates needs no promise", func(c *Config) { c.Exit = exitGates }, nil, obs("t1", "", gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, "all gates pass"},
		{"policy promise: promise alone", func(c *Config) { c.Exit = exitPromise; c.Gates = nil }, nil, obs("t1", done, nil), DecideComplete, "promise"},
		{"policy promise: a failing gate still blocks", func(c *Config) { c.Exit = exitPromise }, nil, obs("t1", done, gateResults(gates.StatusFail, gates.StatusPass)), DecideContinue, "gate build"},
		{"policy either: gates pass without promise", func(c *Config) { c.Exit = exitEither }, nil, obs("t1", "", gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, "all gates pass"},
		{"marker completes", func(c *Config) { c.Markers = []string{"<loop-complete>"} }, nil, obs("t1", "<loop-complete>", gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, "marker"},
		{"status block EXIT_SIGNAL", nil, nil, obs("t1", "---LOOP_STATUS---\nEXIT_SIGNAL: true\n---END_STATUS---", gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, "EXIT_SIGNAL"},
		{"assumption criterion never completes", func(c *Config) { c.Criteria = []Criterion{{Name: "fast", Verify: VerifyAssumption}} }, nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecideContinue, "criterion fast"},
		{"observation criterion from the status block", func(c *Config) { c.Criteria = []Criterion{{Name: "docs", Verify: VerifyObservation}} }, nil,
			obs("t1", "---LOOP_STATUS---\nEXIT_SIGNAL: true\nCRITERIA: {\"docs\": true}\n---END_STATUS---", gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, ""},
		{"execution criterion needs its gate to pass", func(c *Config) { c.Criteria = []Criterion{{Name: "tested", Verify: verifyExecution, Gate: "test"}} }, nil,
			obs("t1", done, gateResults(gates.StatusPass, gates.StatusSkip)), DecideContinue, "criterion tested"},
		{"max iterations reached pauses", nil, func(s *State) { s.Iteration = 9 }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "max iterations reached"},
		{"last iteration may still complete", nil, func(s *State) { s.Iteration = 9 }, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecideComplete, ""},
		{"beyond max iterations", nil, func(s *State) { s.Iteration = 10 }, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecidePause, "exceeded"},
		{"wall clock", func(c *Config) { c.MaxDuration = "30s" }, nil, obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass)), DecidePause, "wall-clock"},
		{"token budget", func(c *Config) { c.TokenBudget = 100 }, nil, func() Observation {
			o := obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass))
			o.Tokens = 101
			return o
		}(), DecidePause, "token budget"},
		{"irreversible path", func(c *Config) { c.Irreversible = []string{"migrations/**"} }, nil,
			func() Observation {
				o := obs("t1", done, gateResults(gates.StatusPass, gates.StatusPass))
				o.Touched = []string{"migrations/001.sql"}
				return o
			}(), DecidePause, "irreversible path migrations/001.sql"},
		{"irreversible base-name glob", func(c *Config) { c.Irreversible = []string{"*.pem"} }, nil,
			func() Observation { o := obs("t1", "", nil); o.Touched = []string{"deploy/key.pem"}; return o }(), DecidePause, "irreversible"},
		{"must-not command", func(c *Config) { c.MustNot = []string{"git push --force"} }, nil,
			func() Observation {
				o := obs("t1", "", nil)
				o.Commands = []string{"git push --force origin main"}
				return o
			}(), DecidePause, "must-not"},
		{"no progress", nil, func(s *State) { s.Breakers.Unchanged = 2 }, obs("tree0", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "no progress"},
		{"thrashing", nil, func(s *State) {
			s.Tree = "t5"
			s.Breakers.Trees = []TreeAt{{Iteration: 2, Tree: "t2"}}
			s.Breakers.Revisits = 1
		}, obs("t2", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "iteration 2"},
		{"one return to an earlier tree is not thrashing", nil, func(s *State) { s.Tree = "t5"; s.Breakers.Trees = []TreeAt{{Iteration: 2, Tree: "t2"}} }, obs("t2", "", gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "unmet"},
		{"same failure fingerprint", nil, func(s *State) { s.Breakers.LastFingerprint = "test=testfail"; s.Breakers.SameFingerprint = 2 }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "same failure in test"},
		{"stuck on the same unmet set with the same failure", func(c *Config) { c.Limits.SameError = 100 },
			func(s *State) {
				s.Breakers.LastUnmet, s.Breakers.SameUnmet, s.Breakers.LastFingerprint = "exit signal, gate test", 4, "test=testfail"
			},
			obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "stuck"},
		{"stuck on the same unmet set in the same tree", func(c *Config) { c.Limits.SameError, c.Limits.NoProgress = 100, 100 },
			func(s *State) { s.Breakers.LastUnmet, s.Breakers.SameUnmet = "exit signal, gate test", 4 },
			obs("tree0", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "stuck"},
		{"the same unmet set with a new tree and a new failure is progress", nil,
			func(s *State) {
				s.Breakers.LastUnmet, s.Breakers.SameUnmet, s.Breakers.LastFingerprint = "exit signal, gate test", 4, "test=other"
			},
			obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "unmet"},
		{"a promise-only loop that changes files is not stuck", func(c *Config) { c.Gates, c.Exit = nil, exitPromise },
			func(s *State) { s.Breakers.LastUnmet, s.Breakers.SameUnmet = "exit signal", 4 }, obs("t1", "working", nil), DecideContinue, "exit signal"},
		{"rework limit set by a person escalates", func(c *Config) { c.Limits.SameError, c.Limits.Rework = 100, 3 },
			func(s *State) { s.Breakers.Rework = map[string]int{"test": 3}; s.Breakers.LastLayer = "build" }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecidePause, "escalating"},
		{"default rework limit only advises", func(c *Config) { c.Limits.SameError = 100 },
			func(s *State) { s.Breakers.Rework = map[string]int{"test": 3}; s.Breakers.LastLayer = "build" }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "unmet"},
		{"work on one layer is not rework", func(c *Config) { c.Limits.SameError, c.Limits.Rework = 100, 1 },
			func(s *State) { s.Breakers.Rework = map[string]int{"test": 0}; s.Breakers.LastLayer = "test" }, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "unmet"},
		{"no promise and no gate runs to its limit", func(c *Config) { c.Gates, c.Promises, c.Exit = nil, nil, ExitLimit },
			func(s *State) { s.Iteration = 9 }, obs("t1", done, nil), DecidePause, "ran to its limit of 10 iterations (no promise or gate ends this loop); to go on, resume with a higher limit: `git loop resume x --max-iterations 20`"},
		{"no promise and no gate: a promise does not complete it", func(c *Config) { c.Gates, c.Promises, c.Exit = nil, nil, ExitLimit },
			nil, obs("t1", done+"\n---LOOP_STATUS---\nEXIT_SIGNAL: true\n---END_STATUS---", nil), DecideContinue, unmetLimit},
		{"continue otherwise", nil, nil, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)), DecideContinue, "unmet: gate test, exit signal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := decide(testConfig(tt.cfg), testState(tt.st), tt.obs)
			if v.Decision != tt.decision || !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("got %s (%s), want %s (%s)", v.Decision, v.Reason, tt.decision, tt.reason)
			}
		})
	}
}

func TestDecideRouting(t *testing.T) {
	cfg := testConfig(func(c *Config) { c.Routes = []Route{{Pattern: `unwrap_used`, Layer: "build"}} })
	g := gateResults(gates.StatusPass, gates.StatusFail)
	g[1].Tail = "warning: called unwrap_used on a Result"
	v := decide(cfg, testState(nil), obs("t1", "", g))
	if v.Layer != "build" || v.State.Breakers.LastLayer != "build" {
		t.Fatalf("routed to %q, last layer %q; want build", v.Layer, v.State.Breakers.LastLayer)
	}
	if !strings.Contains(v.ForAgent, `Rework layer "build"`) || !strings.Contains(v.ForAgent, `gate "test" that matched`) || !strings.Contains(v.ForAgent, "unwrap_used") {
		t.Errorf("continuation does not name the routed layer and output:\n%s", v.ForAgent)
	}
}

func TestContinuationMessage(t *testing.T) {
	g := gateResults(gates.StatusPass, gates.StatusFail)
	g[1].Tail = strings.Repeat("noise\n", 100) + "--- FAIL: TestAdd\n"
	g[1].ExitCode = 1
	v := decide(testConfig(nil), testState(nil), obs("t1", done, g))
	for _, want := range []string{"Make the tests pass.", "iteration 1 of 10", "You signalled completion, but test does not pass",
		`gate "test" (fail, exit 1)`, "--- FAIL: TestAdd", "every gate passes (build, test) and you write <promise>DONE</promise>"} {
		if !strings.Contains(v.ForAgent, want) {
			t.Errorf("continuation lacks %q:\n%s", want, v.ForAgent)
		}
	}
	if strings.Count(v.ForAgent, "noise") > tailLines {
		t.Errorf("continuation carries more than %d lines of output", tailLines)
	}
}

// TestContinuationFencesOutput: gate output holding ``` stays inside the message's code block.
func TestContinuationFencesOutput(t *testing.T) {
	g := gateResults(gates.StatusPass, gates.StatusFail)
	g[1].Tail = "```\nbroken out\n```"
	v := decide(testConfig(nil), testState(nil), obs("t1", "", g))
	if !strings.Contains(v.ForAgent, "````\n```\nbroken out\n```\n````") {
		t.Errorf("output not fenced with a longer fence:\n%s", v.ForAgent)
	}
}

func TestDecideIsPure(t *testing.T) {
	st := testState(func(s *State) { s.Breakers.Rework = map[string]int{"test": 1} })
	before := fmt.Sprintf("%+v", *st)
	a := decide(testConfig(nil), st, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)))
	b := decide(testConfig(nil), st, obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail)))
	if fmt.Sprintf("%+v", *st) != before {
		t.Fatal("Decide changed its input state")
	}
	if a.Reason != b.Reason || a.Decision != b.Decision || a.ForAgent != b.ForAgent {
		t.Fatal("Decide gave different verdicts for the same inputs")
	}
}

// TestDecideProperties drives random loops: every loop ends (complete or pause) within its
// limit, and no verdict completes a loop while a gate fails or an assumption is configured,
// nor on gates that were all skipped unless the agent's signal may complete it alone, nor
// on checks weakened with nothing allowing it.
// Colleague loops are resumed at each checkpoint, never complete on their own, and reach
// their completion checkpoint only when a tool loop would have completed.
func TestDecideProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	statuses := []string{gates.StatusPass, gates.StatusPass, gates.StatusPass, gates.StatusFail, gates.StatusBlocked, gates.StatusSkip, gates.StatusTimeout, gates.StatusError}
	msgs := []string{"", "working on it", done, "```\n<promise>DONE</promise>\n```", "<loop-complete>",
		"---LOOP_STATUS---\nEXIT_SIGNAL: true\nCRITERIA: {\"docs\": true}\n---END_STATUS---"}
	policies := []string{exitBoth, exitGates, exitPromise, exitEither}
	for run := 0; run < 3000; run++ {
		cfg := testConfig(func(c *Config) {
			c.Exit = policies[rng.Intn(len(policies))]
			c.MaxIterations = 1 + rng.Intn(15)
			c.Markers = []string{"<loop-complete>"}
			if rng.Intn(4) == 0 {
				c.Criteria = []Criterion{{Name: "docs", Verify: []string{VerifyObservation, VerifyAssumption}[rng.Intn(2)]}}
			}
			if rng.Intn(3) == 0 {
				c.Shape = spec.ShapeColleague
			}
		})
		st := testState(func(s *State) { s.MaxIterations = cfg.MaxIterations })
		trees := []string{"tree0", "a", "b", "c", "d"}
		for i := 0; ; i++ {
			if i > cfg.MaxIterations {
				t.Fatalf("run %d: loop went past %d iterations", run, cfg.MaxIterations)
			}
			g := gateResults(statuses[rng.Intn(len(statuses))], statuses[rng.Intn(len(statuses))])
			o := obs(trees[rng.Intn(len(trees))], msgs[rng.Intn(len(msgs))], g)
			switch rng.Intn(4) {
			case 0:
				o.Weakened = []checks.Weakening{{Kind: checks.KindSkipAdded, Key: "k1", Why: "t.Skip added"}}
			case 1:
				o.Weakened = []checks.Weakening{{Kind: checks.KindTestRemoved, Key: "k2", Why: "TestAdd removed", Allowed: "loop.testEdits = allow"}}
			}
			v := decide(cfg, st, o)
			if cfg.Shape == spec.ShapeColleague && v.Decision == DecideComplete {
				t.Fatalf("run %d: a colleague loop completed without a person confirming", run)
			}
			if v.Decision == DecideComplete || v.State.Checkpoint == checkpointCompletion {
				passed := 0
				for _, gr := range g {
					if gr.Status != gates.StatusPass && gr.Status != gates.StatusSkip { // independent of decide.go's failed()
						t.Fatalf("run %d: completed with gate %s %s", run, gr.Name, gr.Status)
					}
					if gr.Status == gates.StatusPass {
						passed++
					}
				}
				if passed == 0 && (cfg.Exit == exitBoth || cfg.Exit == exitGates) {
					t.Fatalf("run %d: policy %s completed on gates that all skipped", run, cfg.Exit)
				}
				for _, w := range o.Weakened {
					if w.Allowed == "" {
						t.Fatalf("run %d: completed on weakened checks: %s", run, w.Why)
					}
				}
				for _, c := range cfg.Criteria {
					if c.Verify == VerifyAssumption {
						t.Fatalf("run %d: completed with an assumed criterion", run)
					}
				}
			}
			if v.State.Iteration != st.Iteration+1 {
				t.Fatalf("run %d: iteration went from %d to %d", run, st.Iteration, v.State.Iteration)
			}
			if v.State.Checkpoint == checkpointPlan || v.State.Checkpoint == checkpointIteration {
				v.Decision, v.State.Status, v.State.Checkpoint = DecideContinue, StatusActive, "" // a person resumes
			}
			if v.Decision != DecideContinue {
				if v.State.Status == StatusActive {
					t.Fatalf("run %d: %s left the loop active", run, v.Decision)
				}
				break
			}
			next := v.State
			st = &next
		}
	}
}
