//go:build unix

package claude_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs Claude Code through every scenario the agents share.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "claude")
}

// Claude Code runs a subagent (its Agent tool) that fixes the bug and claims done. The
// subagent's stop (SubagentStop) must not advance or end the loop; the main session's stop,
// with its own promise, completes it at iteration 1.
func TestRealAgentClaudeSubagent(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "claude")
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t),
		mockmodel.Script{
			{Tool: "Agent", Input: map[string]any{"description": "Fix the subtraction", "prompt": "Fix Sub in calc/calc.go.",
				"subagent_type": "general-purpose"}},
			{Text: "Fixed. <promise>DONE</promise>"},
		},
		mockmodel.Script{{Shell: realagents.FixCommand}, {Text: "Subagent: all fixed. <promise>DONE</promise>"}},
	)
	e.InstallHooks()
	e.StartLoop()
	r := e.RunAgent(realagents.AgentTimeout, realagents.Task)
	t.Logf("claude ran in %v", r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("claude exited %d", r.Code)
	}
	e.SavePayloads(realagents.PayloadDir(), "subagent")

	var sub []realagents.HookCall
	for _, h := range e.Hooks() {
		if h.Event == "subagent-stop" {
			sub = append(sub, h)
		}
	}
	if len(sub) != 1 {
		t.Fatalf("the SubagentStop hook ran %d times, want once", len(sub))
	}
	var p struct {
		Event string `json:"hook_event_name"`
		Agent string `json:"agent_id"`
	}
	sub[0].Decode(t, &p)
	if p.Event != "SubagentStop" || p.Agent == "" {
		t.Errorf("the subagent's payload is not a SubagentStop naming the subagent: %s", sub[0].Payload)
	}
	if strings.TrimSpace(sub[0].Answer) != "" {
		t.Errorf("the SubagentStop hook answered %s, want nothing", sub[0].Answer)
	}
	if stops := e.StopHooks(); len(stops) != 1 || !strings.Contains(stops[0].Answer, "completed at iteration 1") {
		t.Errorf("want the main session's one stop to complete the loop; its stops: %+v", stops)
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 1 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 1", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("complete")
	e.Fsck()
}

// TestRealAgentClaudeSlashCommand: the /git-loop command `install claude` writes works in the
// real Claude Code with the official ralph-loop plugin's arguments: its command block runs
// before the model is asked, starts the loop bound to the session with the promise as typed
// (a comma in it included), the model sees git-loop's output, and the promise completes the
// loop. Arguments a fenced block cuts short start nothing: the command fails, and Claude Code
// shows the person git-loop's reason and asks the model nothing.
func TestRealAgentClaudeSlashCommand(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "claude")
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t),
		mockmodel.Script{{Shell: realagents.FixCommand}, {Text: "Fixed. <promise>DONE, truly</promise>"}})
	e.InstallHooks()
	r := e.RunAgent(realagents.AgentTimeout, `/git-loop "Fix Sub in calc/calc.go so that go test passes." --completion-promise "DONE, truly" --max-iterations 5`)
	if r.Code != 0 {
		t.Errorf("claude exited %d", r.Code)
	}
	if first := e.MainRequest(0, 0); !strings.Contains(first.LastUser, "loop main started") {
		t.Errorf("the model was not shown git-loop's start: %q", first.LastUser)
	}
	if st := e.Status("main"); st.Status != "completed" || st.Iteration != 1 || st.Session == "" {
		t.Errorf("loop %s at iteration %d (session %q): %s; want completed at 1, bound to the session", st.Status, st.Iteration, st.Session, st.Reason)
	}

	cut := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{{Text: "I will not work on it."}})
	cut.InstallHooks()
	r = cut.RunAgent(realagents.AgentTimeout, "/git-loop Fix this panic:\n```\npanic: assignment to entry in nil map\n```\n--max-iterations 3")
	if r.Code != 0 {
		t.Errorf("claude exited %d", r.Code)
	}
	if !strings.Contains(r.Stdout, "cut short, so no loop was started") {
		t.Errorf("the person was not shown why nothing started:\n%s", r.Stdout)
	}
	if n := len(cut.Mock.MainRequests()); n != 0 {
		t.Errorf("the model was asked %d times after a start that failed", n)
	}
	if out := cut.Loop("list"); !strings.Contains(out, "no loops") {
		t.Errorf("a loop was started from arguments cut short:\n%s", out)
	}
}

// An evaluator gate judged by the real Claude Code binary (`claude -p --output-format json`,
// against the mock, which answers verdicts): the agent fixes the bug and the test passes,
// but the evaluator judges the plain-words condition unmet, and its reason reaches the agent
// as the stop hook's block reason, word for word; the agent does the rest, the evaluator
// judges it met, and the loop completes. The evaluator's own stop hook (it runs in the same
// project) must stay out of the way.
func TestRealAgentClaudeEvaluator(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "claude")
	const (
		condition = "Sub's doc comment says that the result may be negative"
		unmet     = "Sub's doc comment does not mention negative results"
		document  = `sed -i.bak 's|// Sub returns a minus b.|// Sub returns a minus b, which may be negative.|' calc/calc.go && rm calc/calc.go.bak`
	)
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t),
		mockmodel.Script{ // the agent
			{Shell: realagents.FixCommand},
			{Text: "Fixed. <promise>DONE</promise>"},
			{Shell: document},
			{Text: "Documented. <promise>DONE</promise>"},
		},
		mockmodel.Script{{Text: "Looking at the patch:\n```json\n{\"met\": false, \"impossible\": false, \"reason\": \"" + unmet + "\"}\n```"}},
		mockmodel.Script{{Text: `{"met": true, "impossible": false, "reason": "the comment says it"}`}},
	)
	e.InstallHooks()
	evaluator := "'" + strings.ReplaceAll(inst.Exe, "'", `'\''`) + "' -p --model haiku --output-format json"
	e.Git("config", "loop.evaluator", evaluator)
	e.StartLoop("--judge", condition)
	e.RunTask("")

	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Fatalf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "complete")
	var blocked []string
	for _, h := range e.StopHooks() {
		if r := h.Reason(); r != "" {
			blocked = append(blocked, r)
		}
	}
	if len(blocked) != 1 || !strings.Contains(blocked[0], unmet) || strings.Contains(blocked[0], "Sub(5, 3)") {
		t.Fatalf("want one block, with the evaluator's reason and not a test failure; got %q", blocked)
	}
	if next := e.MainRequest(0, 2); strings.TrimSpace(inst.Feedback(next.LastUser)) != strings.TrimSpace(blocked[0]) {
		t.Errorf("the evaluator's reason did not reach the model as the next user message:\nreason: %q\nnext user message: %q", blocked[0], next.LastUser)
	}
	for conv, want := range map[int]string{1: "the patch of the fix", 2: "the patch of the comment"} {
		in := e.MainRequest(conv, 0).LastUser
		if !strings.Contains(in, condition) || !strings.Contains(in, "This input is bounded to 131072 bytes") || !strings.Contains(in, "calc/calc.go") {
			t.Errorf("the evaluator's input (%s) lacks the condition, the bound or the patch: %q", want, in)
		}
	}
	for n, verdict := range map[int]string{1: "unmet", 2: "met"} {
		var rec struct {
			Record struct {
				Gates []struct {
					Name  string `json:"name"`
					Judge *struct {
						Verdict    string  `json:"verdict"`
						Evaluator  string  `json:"evaluator"`
						InputBytes int     `json:"input_bytes"`
						CostUSD    float64 `json:"cost_usd"`
					} `json:"judge"`
				} `json:"gates"`
			} `json:"record"`
		}
		if err := json.Unmarshal([]byte(e.Loop("show", "fix", strconv.Itoa(n), "--json")), &rec); err != nil {
			t.Fatal(err)
		}
		gates := rec.Record.Gates
		if len(gates) != 2 || gates[1].Judge == nil || gates[1].Judge.Verdict != verdict || gates[1].Judge.Evaluator != evaluator || gates[1].Judge.InputBytes == 0 {
			t.Errorf("iteration %d recorded the judge as %+v, want verdict %s by %s", n, gates, verdict, evaluator)
			continue
		}
		t.Logf("iteration %d: evaluator verdict %s, input %d bytes, cost $%.4f", n, verdict, gates[1].Judge.InputBytes, gates[1].Judge.CostUSD)
	}
	e.Fsck()
}

// The model "fixes" the failing test by deleting it: with TestSub gone, go test passes and
// the promise comes, but the checks are weaker than at the loop's start, so the stop is sent
// back naming the removed test, and the reason reaches the model as the next user message;
// the loop stays active. The model restores the test, fixes the code and promises again;
// the loop completes at iteration 2, and iteration 1's record keeps the weakening.
func TestRealAgentClaudeDeletesTest(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "claude")
	const (
		// TestSub goes, the file stays (so the weakening is a removed test, not a removed
		// file): go test then passes with no tests to run.
		deleteTest = `printf 'package calc\n' > calc/calc_test.go`
		restore    = `git checkout -- calc/calc_test.go && ` + realagents.FixCommand
		removed    = "TestSub was removed from calc/calc_test.go"
	)
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{
		{Shell: deleteTest},
		{Text: "The tests pass now. <promise>DONE</promise>"},
		{Shell: restore},
		{Text: "Restored the test and fixed Sub. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.StartLoop()
	r := e.RunAgent(realagents.AgentTimeout, realagents.Task)
	t.Logf("claude ran in %v", r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("claude exited %d", r.Code)
	}

	stops := e.StopHooks()
	if len(stops) != 2 {
		t.Fatalf("the stop hook ran %d times, want 2 (the deleted test, the fix)", len(stops))
	}
	reason := strings.TrimSpace(stops[0].Reason())
	if !strings.Contains(reason, removed) || strings.Contains(reason, "Sub(5, 3)") {
		t.Errorf("the stop after the deleted test was not sent back naming it (and not a test failure: go test passed); the hook answered %s", stops[0].Answer)
	}
	if stops[1].Reason() != "" {
		t.Errorf("the stop after the restore and the fix was sent back: %s", stops[1].Answer)
	}
	if next := e.MainRequest(0, 2); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
		t.Errorf("the block reason did not reach the model word for word as the next user message:\nreason: %q\nnext user message: %q", reason, next.LastUser)
	}
	one := e.Show("fix", 1)
	if one.Decision != "continue" {
		t.Errorf("iteration 1 decided %q (%s), want continue: the loop must stay active after a weakened stop", one.Decision, one.Reason)
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	e.CheckLog("continue", "complete")
	show := e.Loop("show", "fix", "1")
	if !strings.Contains(show, "checks weakened since the loop's start:") || !strings.Contains(show, removed) || !strings.Contains(show, "unresolved") {
		t.Errorf("git loop show fix 1 does not list the weakening as unresolved:\n%s", show)
	}
	if show := e.Loop("show", "fix", "2"); strings.Contains(show, "checks weakened") {
		t.Errorf("git loop show fix 2 lists a weakening after the test was restored:\n%s", show)
	}
	e.Fsck()
}
