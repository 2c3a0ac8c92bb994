package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop/gates"
)

// TestDecideLongSession: the thresholds are exact — an iteration of twice the previous one
// or more warns, a session warns once past 25 minutes — and the warning reaches both the
// agent and the person with how to go on in a fresh session.
func TestDecideLongSession(t *testing.T) {
	tests := []struct {
		name    string
		st      func(*State)
		at      time.Duration // obs.At - t0
		warning string        // substring; "" for none
	}{
		{"exactly twice the previous iteration", func(s *State) { s.IterationStart, s.LastIteration = t0, 5*time.Minute }, 10 * time.Minute, "iteration 1 took 10m0s, at least twice the previous one (5m0s)"},
		{"just under twice", func(s *State) { s.IterationStart, s.LastIteration = t0, 5*time.Minute }, 10*time.Minute - time.Second, ""},
		{"the first iteration has nothing to compare", nil, 20 * time.Minute, ""},
		{"session at exactly 25 minutes", func(s *State) { s.IterationStart, s.LastIteration = t0.Add(20*time.Minute), 4*time.Minute }, 25 * time.Minute, ""},
		{"session past 25 minutes", func(s *State) { s.IterationStart, s.LastIteration = t0.Add(20*time.Minute), 4*time.Minute }, 25*time.Minute + time.Second, "this session has run 25m1s, past 25m0s"},
		{"a fresh session restarts the clock", func(s *State) { s.SessionStart, s.IterationStart = t0.Add(20*time.Minute), t0.Add(20*time.Minute) }, 30 * time.Minute, ""},
		{"both at once", func(s *State) { s.IterationStart, s.LastIteration = t0.Add(10*time.Minute), time.Minute }, 40 * time.Minute, "twice the previous one (1m0s); this session has run 40m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail))
			o.At = t0.Add(tt.at)
			st := testState(tt.st)
			v := decide(testConfig(nil), st, o)
			if v.Decision != DecideContinue {
				t.Fatalf("decision %s (%s)", v.Decision, v.Reason)
			}
			began := st.IterationStart
			if began.IsZero() {
				began = t0
			}
			if !v.State.IterationStart.Equal(o.At) || v.State.LastIteration != o.At.Sub(began) {
				t.Errorf("recorded iteration start %v, took %v", v.State.IterationStart, v.State.LastIteration)
			}
			if tt.warning == "" {
				if strings.Contains(v.ForAgent, "Long session") || strings.Contains(v.ForUser, "long session") {
					t.Errorf("unexpected warning:\n%s\n%s", v.ForAgent, v.ForUser)
				}
				return
			}
			if !strings.Contains(v.ForAgent, "Long session: ") || !strings.Contains(v.ForAgent, tt.warning) || !strings.Contains(v.ForAgent, "from iteration 1 in a fresh session") {
				t.Errorf("agent message lacks the warning %q:\n%s", tt.warning, v.ForAgent)
			}
			if !strings.Contains(v.ForUser, "long session: ") || !strings.Contains(v.ForUser, tt.warning) || !strings.Contains(v.ForUser, "`git loop resume x --fresh`") {
				t.Errorf("user message lacks the warning %q or how to resume:\n%s", tt.warning, v.ForUser)
			}
		})
	}
}

// TestColleagueCheckpointWarns: a checkpoint carries the long-session warning too.
func TestColleagueCheckpointWarns(t *testing.T) {
	o := obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail))
	o.At = t0.Add(time.Hour)
	v := decide(testConfig(colleague(nil)), testState(nil), o)
	if v.State.Checkpoint != checkpointPlan || !strings.Contains(v.ForAgent, "Long session") || !strings.Contains(v.ForUser, "--fresh") {
		t.Errorf("checkpoint %q without the warning:\n%s\n%s", v.State.Checkpoint, v.ForAgent, v.ForUser)
	}
}

// TestDecideFreshContextNeverWarns: the driver runs each iteration in a fresh context, so
// a long loop is not a long session; the iteration is still timed.
func TestDecideFreshContextNeverWarns(t *testing.T) {
	o := obs("t1", "", gateResults(gates.StatusPass, gates.StatusFail))
	o.At, o.FreshContext = t0.Add(time.Hour), true
	v := decide(testConfig(nil), testState(func(s *State) { s.LastIteration = time.Minute }), o)
	if strings.Contains(v.ForAgent, "Long session") || strings.Contains(v.ForUser, "long session") || v.State.LastIteration != time.Hour {
		t.Errorf("fresh context: took %v\n%s\n%s", v.State.LastIteration, v.ForAgent, v.ForUser)
	}
}

// TestStopTimesIterations drives a real loop with a stepped clock: the second iteration,
// twice as long as the first, warns; the times are recorded in state.json; resume --fresh
// restarts the session clock, so a later stop past 25 minutes of loop time does not warn.
func TestStopTimesIterations(t *testing.T) {
	s := openStoreAt(t, newTestRepo(t))
	if _, err := s.Start(StartOptions{Name: "g", Session: "s1", Flags: Settings{Prompt: "p", Promises: []string{"DONE"},
		Policy: Policy{Limits: Limits{SameError: 9, NoProgress: 9, Stuck: 9}}}}); err != nil {
		t.Fatal(err)
	}
	_, st, err := s.ReadState("g")
	if err != nil {
		t.Fatal(err)
	}
	clock := st.StartedAt
	s.Now = func() time.Time { return clock }
	step := func(d time.Duration, session string) *StopResult {
		clock = clock.Add(d)
		return stop(t, s, StopInput{Session: session, Message: "working"})
	}
	if r := step(time.Minute, "s1"); strings.Contains(r.Verdict.ForUser, "long session") {
		t.Fatalf("first iteration warned: %s", r.Verdict.ForUser)
	}
	r := step(2*time.Minute, "s1")
	if !strings.Contains(r.Verdict.ForUser, "long session: iteration 2 took 2m0s, at least twice the previous one") ||
		!strings.Contains(r.Verdict.ForAgent, "Long session") {
		t.Fatalf("second iteration did not warn:\n%s\n%s", r.Verdict.ForUser, r.Verdict.ForAgent)
	}
	if r.State.LastIteration != 2*time.Minute || !r.State.IterationStart.Equal(clock) {
		t.Errorf("recorded %v from %v", r.State.LastIteration, r.State.IterationStart)
	}
	clock = clock.Add(26 * time.Minute)
	if _, err := s.ResumeFresh("g", 0); err != nil {
		t.Fatal(err)
	}
	if r := step(2*time.Minute, "s2"); r.Verdict.Decision != DecideContinue || strings.Contains(r.Verdict.ForUser, "long session") {
		t.Fatalf("a fresh session warned: %s", r.Verdict.ForUser)
	}
}
