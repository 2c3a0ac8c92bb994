//go:build unix

package realagents

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
)

// The scenarios every real agent runs (README, "Testing with the real agents"). Each agent's
// package (hooks/agents/NAME) runs them with RunScenarios beside its own: one test process
// per agent, so that go test runs two agents' suites at once and no one package holds them
// all.

// Task is the loop's task and the agent's prompt.
const Task = "Fix Sub in calc/calc.go: it must return a minus b. Change only calc/calc.go. " +
	"Done when go test ./... passes; then write <promise>DONE</promise>."

// AgentTimeout bounds one run of an agent in a scenario; a run takes a few seconds.
const AgentTimeout = 3 * time.Minute

// Main is an agent package's TestMain: it marks the suite's processes, runs the tests four at
// a time unless -parallel says otherwise (the agents mostly wait, for their model, their
// hooks and node's start), removes the git-loop it built and fails if a process the suite
// started still runs.
func Main(m *testing.M) {
	MarkSuite()
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	code := m.Run()
	RemoveBuild()
	os.Exit(CheckLeftovers(code))
}

// ModuleDir is the root of the module under test: the directory of `go env GOMOD` from the
// test's working directory.
func ModuleDir() string {
	return filepath.Dir(goEnv("GOMOD"))
}

// PayloadDir is where SaveEnvVar=1 writes the hook payloads the agents sent.
func PayloadDir() string {
	return filepath.Join(ModuleDir(), "testdata", "realagents", "payloads")
}

// BuiltGitLoop is git-loop built from the module under test (once per process).
func BuiltGitLoop(t *testing.T) string {
	t.Helper()
	exe, took, err := GitLoop(ModuleDir())
	if err != nil {
		t.Fatal(err)
	}
	if took > 0 {
		t.Logf("built git-loop in %v", took.Round(time.Millisecond))
	}
	return exe
}

// Scenario is one behaviour every agent must show.
type Scenario struct {
	// Name is the subtest's name, after TestRealAgent (README's table names them so).
	Name string
	Run  func(t *testing.T, inst Installed, gitLoop string)
}

// Scenarios are the behaviours every agent is run through.
var Scenarios = []Scenario{
	{"FalseClaimThenFix", falseClaimThenFix},
	{"EmptyAnswerAfterBlock", emptyAnswerAfterBlock},
	{"BlockCap", blockCap},
	{"Driver", driver},
	{"PromiseOnly", promiseOnly},
	{"PromiseInCode", promiseInCode},
	{"Limit", limit},
	{"TokenBudget", tokenBudget},
	{"MustNot", mustNot},
	{"Resume", resume},
	{"Housekeeping", housekeeping},
}

// RunScenarios runs every scenario with the agent named agent, as parallel subtests of t.
func RunScenarios(t *testing.T, agent string) {
	for _, s := range Scenarios {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			inst := Require(t, agent)
			s.Run(t, inst, BuiltGitLoop(t))
		})
	}
}

// StartLoop starts loop fix: the task, promise DONE, gate go test.
func (e *Env) StartLoop(extra ...string) {
	e.T.Helper()
	args := append([]string{"start", "fix", "--shape", "tool", "--promise", "DONE", "--gate", "test=go test ./...", "-p", Task}, extra...)
	e.Loop(args...)
}

// MainRequest returns the first request of main conversation conv that got step, failing
// the test if there is none.
func (e *Env) MainRequest(conv, step int) mockmodel.Request {
	e.T.Helper()
	for _, r := range e.Mock.MainRequests() {
		if r.Conversation == conv && r.Step == step {
			return r
		}
	}
	e.T.Fatalf("the model was never asked for step %d of conversation %d", step, conv)
	return mockmodel.Request{}
}

// CheckLog fails the test unless the loop's stop iterations had the decisions want, in
// order (iteration 1 first).
func (e *Env) CheckLog(want ...string) {
	e.T.Helper()
	var got []string
	for _, it := range e.Log("fix") {
		if it.Kind != "start" {
			got = append(got, it.Decision)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		e.T.Errorf("iterations decided %q, want %q", got, want)
	}
}

// CheckMessages fails the test unless the loop's stop iterations judged the agent's messages
// want, in order: what the agent said in each turn, read from its payload or its log.
func (e *Env) CheckMessages(want ...string) {
	e.T.Helper()
	var got []string
	for _, it := range e.Log("fix") {
		if it.Kind != "start" {
			got = append(got, strings.TrimSpace(e.Show("fix", it.Iteration).Message))
		}
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		e.T.Errorf("iterations judged the messages %q, want %q", got, want)
	}
}

// RunTask runs the agent once on the task, failing the test if it exits non-zero, and keeps
// the hook payloads it sent as the fixture of that name ("": none).
func (e *Env) RunTask(fixture string) {
	e.T.Helper()
	r := e.RunAgent(AgentTimeout, Task)
	e.T.Logf("%s ran in %v", e.Name, r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		e.T.Errorf("%s exited %d", e.Name, r.Code)
	}
	if fixture != "" {
		e.SavePayloads(PayloadDir(), fixture)
	}
}

// mockUsage is the tokens the mock reported: for the first main request, and for all
// requests (each answer's input tokens, a quarter of the request's bytes, and its output
// tokens, at most 10).
func mockUsage(e *Env) (first, all int64) {
	for _, r := range e.Mock.Requests() {
		n := int64(len(r.Body)/4+1) + 10
		all += n
		if r.Kind == "main" && first == 0 {
			first = int64(len(r.Body)/4 + 1)
		}
	}
	return first, all
}

// blockCaps names the agents that stop honouring blocks after some in a row, as the pause
// reason names them, and how many they honour: 8 (Claude Code, Copilot CLI), or 7 (Qwen Code,
// whose cap of 8 counts the block it overrides).
var blockCaps = map[string]struct {
	Agent    string
	Honoured int
}{"claude": {"Claude Code", 8}, "copilot": {"Copilot CLI", 8}, "qwen": {"Qwen Code", 7}}

// The model claims it is done without fixing anything; the stop hook must send it back with
// the failing test's output, which must reach the model as the next user message; it
// fixes the bug with its shell tool and promises again, and the loop completes.
func falseClaimThenFix(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.StartLoop()
	e.RunTask("false-claim")

	stops := e.StopHooks()
	if len(stops) != 2 {
		t.Fatalf("the stop hook ran %d times, want 2 (the false claim, the fix)", len(stops))
	}
	reason := strings.TrimSpace(stops[0].Reason())
	if !strings.Contains(reason, "Sub(5, 3) = 8, want 2") {
		t.Errorf("the false claim was not sent back with the failing test's output; the hook answered %s", stops[0].Answer)
	}
	if stops[1].Reason() != "" {
		t.Errorf("the stop after the fix was sent back: %s", stops[1].Answer)
	}
	if next := e.MainRequest(0, 1); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
		t.Errorf("the block reason did not reach the model word for word as the next user message:\nreason: %q\nnext user message: %q", reason, next.LastUser)
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "complete")
	e.CheckMessages("All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>")
	e.Fsck()
}

// After a block, the model fixes the bug and then gives an empty final answer. The stop
// that follows carries no fresh promise (Claude Code leaves last_assistant_message out,
// Codex sends null, Gemini repeats the earlier answers in prompt_response, Copilot names no
// message at all), so the loop must not complete on the promise already rejected at
// iteration 1: it must send the agent back for one, and complete when the promise comes.
func emptyAnswerAfterBlock(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: FixCommand},
		{Text: ""},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.StartLoop()
	e.RunTask("empty-answer")

	stops := e.StopHooks()
	if len(stops) < 2 || stops[0].Reason() == "" {
		t.Fatalf("want the false claim sent back and a second stop; the hook ran %d times", len(stops))
	}
	st := e.Status("fix")
	if len(stops) != 3 {
		t.Fatalf("the stop hook ran %d times, want 3 (the false claim, the empty answer, the promise)", len(stops))
	}
	reason := strings.TrimSpace(stops[1].Reason())
	if next := e.MainRequest(0, 3); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
		t.Errorf("the empty answer was not sent back, word for word, as the next user message:\nreason: %q\nnext user message: %q", reason, next.LastUser)
	}
	if st.Status != "completed" || st.Iteration != 3 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 3", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "continue", "complete")
	e.Fsck()
}

// The model never runs a tool and never promises; the circuit breakers are set high, so
// only the iteration limit (10) would end the loop. Claude Code and Copilot CLI stop
// honouring blocks after 8 in a row and exit; the others (Codex CLI, Gemini CLI, OpenCode)
// have no such cap: they honour every block, and the loop's own limit ends it at its 10th
// stop. Whatever the agent does, the loop must not be left active with nobody working on it.
func blockCap(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{{Text: "Still looking into it."}})
	e.InstallHooks()
	for _, key := range []string{"loop.sameErrorLimit", "loop.noProgressLimit", "loop.stuckLimit", "loop.reworkLimit"} {
		e.Git("config", key, "50")
	}
	e.StartLoop()
	e.RunTask("block-cap")

	stops := e.StopHooks()
	blocked := 0
	for _, s := range stops {
		if s.Reason() != "" {
			blocked++
		}
	}
	st := e.Status("fix")
	t.Logf("the hook ran %d times and blocked %d; loop %s at iteration %d: %s", len(stops), blocked, st.Status, st.Iteration, st.Reason)
	if st.Status == "active" {
		t.Errorf("%s exited but the loop is still active at iteration %d (%s), with nobody working on it", inst.Name, st.Iteration, st.Reason)
	}
	if capped, ok := blockCaps[inst.Name]; ok {
		// The stop whose block the agent would not honour pauses the loop and says why.
		n := capped.Honoured
		want := fmt.Sprintf("%s stops honouring a stop hook after %d blocks in a row", capped.Agent, n)
		if len(stops) != n+1 || blocked != n || stops[n].Reason() != "" {
			t.Errorf("want %d stops sent back and the next let through; the hook ran %d times and blocked %d", n, len(stops), blocked)
		}
		if st.Status != "paused" || st.Iteration != n+1 || !strings.Contains(st.Reason, want) {
			t.Errorf("loop %s at iteration %d (%s), want paused at iteration %d saying %q", st.Status, st.Iteration, st.Reason, n+1, want)
		}
		if out := e.Loop("status", "fix"); !strings.Contains(out, want) {
			t.Errorf("git loop status does not say why the loop paused:\n%s", out)
		}
	} else {
		if len(stops) != 10 || blocked != 9 || stops[9].Reason() != "" {
			t.Errorf("want 9 stops sent back and the 10th let through at the limit; the hook ran %d times and blocked %d", len(stops), blocked)
		}
		if st.Status != "paused" || st.Iteration != 10 || !strings.Contains(st.Reason, "max iterations reached") {
			t.Errorf("loop %s at iteration %d (%s), want paused at its limit, iteration 10", st.Status, st.Iteration, st.Reason)
		}
	}
	e.Fsck()
}

// Driver mode: `git loop run … -- AGENT` starts the agent afresh for each iteration, with
// the task first and then the continuation message as its prompt. The first run claims it
// is done without fixing anything and is sent back; the second fixes the bug and promises;
// the loop completes at iteration 2. The agent's own git-loop hook is installed too, as a
// person who also uses the agent interactively has it: under the driver it must stay out of
// the way, so that each run is judged once.
func driver(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop,
		mockmodel.Script{{Text: "All fixed. <promise>DONE</promise>"}},
		mockmodel.Script{{Shell: FixCommand}, {Text: "Fixed. <promise>DONE</promise>"}},
	)
	e.InstallHooks()
	r := e.RunLoop(2*AgentTimeout, "fix", "--shape", "tool", "--promise", "DONE", "--gate", "test=go test ./...",
		"--timeout", "2m", "-p", Task)
	t.Logf("git loop run -- %s ran in %v, exit %d", inst.Name, r.Took.Round(time.Millisecond), r.Code)
	if r.Code != 0 {
		t.Errorf("git loop run exited %d, want 0 (complete):\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	e.SavePayloads(PayloadDir(), "driver")

	first, second := e.MainRequest(0, 0), e.MainRequest(1, 0)
	if !strings.Contains(first.LastUser, Task) {
		t.Errorf("the first run's prompt is not the task: %q", first.LastUser)
	}
	if !strings.Contains(second.LastUser, "Sub(5, 3) = 8, want 2") || !strings.Contains(second.LastUser, Task) {
		t.Errorf("the second run's prompt lacks the task or the failing test's output: %q", second.LastUser)
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	for _, it := range e.Log("fix") {
		if it.Kind != "start" && it.Kind != "run" {
			t.Errorf("iteration %d is of kind %s: the agent's hook judged a stop under the driver", it.Iteration, it.Kind)
		}
	}
	e.CheckLog("continue", "complete")
	stops := e.StopHooks()
	if len(stops) < 2 {
		t.Errorf("the agent's own stop hook ran %d times, want once per run at least (is it installed?)", len(stops))
	}
	for _, h := range stops {
		if h.Reason() != "" {
			t.Errorf("the agent's own hook sent it back under the driver: %s", h.Answer)
		}
	}
	e.Fsck()
}

// A loop with a promise and no gate: the model's honest promise at its first stop completes
// it, whatever the agent (issue 16 asks this of Copilot CLI too).
func promiseOnly(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{{Text: "Done. <promise>DONE</promise>"}})
	e.InstallHooks()
	e.Loop("start", "fix", "--shape", "tool", "--promise", "DONE", "-p", Task)
	e.RunTask("promise-only")
	stops := e.StopHooks()
	st := e.Status("fix")
	if len(stops) != 1 || stops[0].Reason() != "" {
		t.Errorf("the stop hook ran %d times; want once, letting the agent stop", len(stops))
	}
	if st.Status != "completed" || st.Iteration != 1 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 1", st.Status, st.Iteration, st.Reason)
	}
	e.Fsck()
}

// The model fixes the bug, then writes its promise inside a fenced code block, where it
// does not count: it is sent back, told so, and its plain promise completes the loop.
func promiseInCode(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{
		{Shell: FixCommand},
		{Text: "Fixed. The promise:\n\n```\n<promise>DONE</promise>\n```"},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.StartLoop()
	e.RunTask("")
	stops := e.StopHooks()
	st := e.Status("fix")
	if len(stops) != 2 {
		t.Fatalf("the stop hook ran %d times, want 2 (the promise in code, the plain one)", len(stops))
	}
	reason := strings.TrimSpace(stops[0].Reason())
	if !strings.Contains(reason, "inside code") {
		t.Errorf("the promise in code was not sent back saying so; the hook answered %s", stops[0].Answer)
	}
	if next := e.MainRequest(0, 2); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
		t.Errorf("the block reason did not reach the model word for word:\nreason: %q\nnext user message: %q", reason, next.LastUser)
	}
	if st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.Fsck()
}

// The model claims done twice without fixing anything; the loop's limit is 2. The second
// stop pauses the loop at its limit and lets the agent stop, which then exits.
func limit(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{{Text: "All fixed. <promise>DONE</promise>"}, {Text: "Really fixed. <promise>DONE</promise>"}})
	e.InstallHooks()
	e.StartLoop("--max-iterations", "2")
	e.RunTask("")
	stops := e.StopHooks()
	if len(stops) != 2 || stops[0].Reason() == "" || stops[1].Reason() != "" {
		t.Errorf("want the first stop sent back and the second let through; the hook ran %d times", len(stops))
	}
	if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 2 || !strings.Contains(st.Reason, "max iterations") {
		t.Errorf("loop %s at iteration %d (%s), want paused at its limit, iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "pause")
	e.Fsck()
}

// A loop with a token budget far below what one turn costs: the first stop counts the
// tokens the agent's own log records (Claude Code's transcript, Codex CLI's rollout, Copilot
// CLI's session log, Gemini CLI's chat log), finds the budget spent, pauses the loop and lets the agent stop. The
// count must lie between what the first model call used and what all calls to the mock used.
func tokenBudget(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{{Text: "All fixed. <promise>DONE</promise>"}})
	e.InstallHooks()
	e.Git("config", "loop.tokenBudget", "1000")
	e.StartLoop()
	e.RunTask("token-budget")
	stops := e.StopHooks()
	if len(stops) != 1 || stops[0].Reason() != "" {
		t.Errorf("want one stop, let through; the hook ran %d times", len(stops))
	}
	st := e.Status("fix")
	if st.Status != "paused" || st.Iteration != 1 || !strings.Contains(st.Reason, "token budget exceeded") {
		t.Fatalf("loop %s at iteration %d (%s), want paused at iteration 1 with the budget spent", st.Status, st.Iteration, st.Reason)
	}
	counted := e.Show("fix", 1).Tokens
	first, all := mockUsage(e)
	if counted < first || counted > all {
		t.Errorf("counted %d tokens; the first model call used %d, all calls %d", counted, first, all)
	}
	e.Fsck()
}

// The model runs a command the loop forbids (loop.mustNot); the stop that follows reads it
// from the agent's log, pauses the loop saying which command, and lets the agent stop.
func mustNot(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{{Shell: "echo forbidden-step"}, {Text: "Done. <promise>DONE</promise>"}})
	e.InstallHooks()
	e.Git("config", "loop.mustNot", "forbidden-step")
	e.StartLoop()
	e.RunTask("must-not")
	stops := e.StopHooks()
	if len(stops) != 1 || stops[0].Reason() != "" {
		t.Errorf("want one stop, let through; the hook ran %d times", len(stops))
	}
	if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 1 || !strings.Contains(st.Reason, `must-not command run: "echo forbidden-step"`) {
		t.Errorf("loop %s at iteration %d (%s), want paused at iteration 1 naming the command", st.Status, st.Iteration, st.Reason)
	}
	e.Fsck()
}

// The loop goes on in a resumed session: the first run claims done falsely and meets the
// loop's limit of 1, which pauses it; the person raises the limit and resumes the agent's
// session (Claude Code --continue, Codex exec resume --last, Gemini --resume latest, Copilot
// --continue), where the model fixes the bug and promises. The resumed session is the loop's
// own (the same id), its log goes on where the loop's marks left it, so the token count
// grows, and the loop completes at iteration 2.
func resume(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.Git("config", "loop.tokenBudget", "100000000")
	e.StartLoop("--max-iterations", "1")
	if r := e.RunAgent(AgentTimeout, Task); r.Code != 0 {
		t.Errorf("%s exited %d", inst.Name, r.Code)
	}
	if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 1 {
		t.Fatalf("after the first run: loop %s at iteration %d (%s), want paused at its limit", st.Status, st.Iteration, st.Reason)
	}
	e.Loop("resume", "fix", "--max-iterations", "4")
	r := e.ResumeAgent(AgentTimeout, "Go on with the task.")
	t.Logf("%s resumed in %v", inst.Name, r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("%s (resumed) exited %d", inst.Name, r.Code)
	}
	e.SavePayloads(PayloadDir(), "resume")
	st := e.Status("fix")
	if st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("pause", "complete")
	one, two := e.Show("fix", 1), e.Show("fix", 2)
	if one.Session == "" || two.Session != one.Session {
		t.Errorf("the resumed session is %q, the first %q: want the same", two.Session, one.Session)
	}
	if inst.Name != "gemini" && (one.Tokens <= 0 || two.Tokens <= one.Tokens) {
		t.Errorf("tokens counted: %d at iteration 1, %d at iteration 2; want the count to grow in the resumed session", one.Tokens, two.Tokens)
	}
	e.Fsck()
}

// With git's maintenance on and the loose-objects threshold below one object, every state
// write starts a roll-up (`git-loop maintenance`) in the background, from the hook the real
// agent runs too: the agent's run and the loop go exactly as without it (the hook answers
// without waiting, and the roll-up holds none of the agent's streams), and the roll-ups
// pack what the loop wrote.
func housekeeping(t *testing.T, inst Installed, gitLoop string) {
	e := New(t, inst, gitLoop, mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.Git("config", "maintenance.auto", "true") // the harness turns it off
	e.Git("config", "maintenance.loose-objects.auto", "-1")
	e.InstallHooks()
	e.StartLoop()
	e.RunTask("")

	if stops := e.StopHooks(); len(stops) != 2 || stops[0].Reason() == "" || stops[1].Reason() != "" {
		t.Errorf("the stop hook ran %d times; want the false claim sent back, then the fix let through", len(stops))
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "complete")
	if err := AwaitPacked(e.Repo); err != nil {
		t.Fatal(err)
	}
	e.Fsck()
}
