//go:build unix

package realagents_test

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) {
	realagents.MarkSuite()
	flag.Parse()
	if !flagSet("test.parallel") {
		// The agents mostly wait (for their model, their hooks, node's start): four at a
		// time, not GOMAXPROCS, keep a 2-core machine busy without idling.
		flag.Set("test.parallel", "4")
	}
	code := m.Run()
	realagents.RemoveBuild()
	os.Exit(realagents.CheckLeftovers(code))
}

// flagSet reports whether the command line set the flag.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// The end-to-end suite against the real agents' binaries (testdata/realagents, README
// "Testing with the real agents"): each test is one scenario, run with each agent as a
// subtest. The agents are installed from npm into a cache on first use; without npm or a
// registry they are skipped saying why, and GITLOOP_REAL_AGENTS chooses (0: none; 1: all,
// failing when one cannot be installed; or a list such as claude,codex).

// agentTimeout bounds one run of an agent in a scenario; a run takes a few seconds.
const agentTimeout = 3 * time.Minute

// payloadDir is where GITLOOP_REAL_AGENTS_SAVE=1 writes the hook payloads the agents sent.
var payloadDir = filepath.Join(moduleDir, "testdata", "realagents", "payloads")

// moduleDir is the module's root, from this package's directory.
const moduleDir = "../.."

// task is the loop's task and the agent's prompt.
const task = "Fix Sub in calc/calc.go: it must return a minus b. Change only calc/calc.go. " +
	"Done when go test ./... passes; then write <promise>DONE</promise>."

// builtGitLoop is git-loop built from this module (once per process).
func builtGitLoop(t *testing.T) string {
	t.Helper()
	exe, took, err := realagents.GitLoop(moduleDir)
	if err != nil {
		t.Fatal(err)
	}
	if took > 0 {
		t.Logf("built git-loop in %v", took.Round(time.Millisecond))
	}
	return exe
}

// eachAgent runs scenario with every real agent, as parallel subtests.
func eachAgent(t *testing.T, scenario func(t *testing.T, inst realagents.Installed, gitLoop string)) {
	for _, a := range realagents.Agents {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			inst := realagents.Require(t, a.Name)
			scenario(t, inst, builtGitLoop(t))
		})
	}
}

// TestRealAgentsAvailable only installs the agents (or finds them in the cache) and says
// so, one line each: `go test -v` prints why an agent is skipped, which a passing
// `go test ./...` never shows. .ci/run runs it first, with -v.
func TestRealAgentsAvailable(t *testing.T) {
	for _, a := range realagents.Agents {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			realagents.Require(t, a.Name)
		})
	}
}

// startLoop starts loop fix: the task, promise DONE, gate go test.
func startLoop(e *realagents.Env, extra ...string) {
	e.T.Helper()
	args := append([]string{"start", "fix", "--shape", "tool", "--promise", "DONE", "--gate", "test=go test ./...", "-p", task}, extra...)
	e.Loop(args...)
}

// mainRequest returns the first request of main conversation conv that got step, failing
// the test if there is none.
func mainRequest(t *testing.T, e *realagents.Env, conv, step int) mockmodel.Request {
	t.Helper()
	for _, r := range e.Mock.MainRequests() {
		if r.Conversation == conv && r.Step == step {
			return r
		}
	}
	t.Fatalf("the model was never asked for step %d of conversation %d", step, conv)
	return mockmodel.Request{}
}

// checkLog fails the test unless the loop's stop iterations had the decisions want, in
// order (iteration 1 first).
func checkLog(t *testing.T, e *realagents.Env, want ...string) {
	t.Helper()
	var got []string
	for _, it := range e.Log("fix") {
		if it.Kind != "start" {
			got = append(got, it.Decision)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("iterations decided %q, want %q", got, want)
	}
}

// The model claims it is done without fixing anything; the stop hook must send it back with
// the failing test's output, which must reach the model as the next user message; it
// fixes the bug with its shell tool and promises again, and the loop completes.
func TestRealAgentFalseClaimThenFix(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{
			{Text: "All fixed. <promise>DONE</promise>"},
			{Shell: realagents.FixCommand},
			{Text: "Fixed. <promise>DONE</promise>"},
		})
		e.InstallHooks()
		startLoop(e)
		runTask(t, e, inst, "false-claim")

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
		if next := mainRequest(t, e, 0, 1); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
			t.Errorf("the block reason did not reach the model word for word as the next user message:\nreason: %q\nnext user message: %q", reason, next.LastUser)
		}
		if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
			t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
		}
		checkLog(t, e, "continue", "complete")
		checkMessages(t, e, "All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>")
		e.Fsck()
	})
}

// checkMessages fails the test unless the loop's stop iterations judged the agent's messages
// want, in order: what the agent said in each turn, read from its payload or its log.
func checkMessages(t *testing.T, e *realagents.Env, want ...string) {
	t.Helper()
	var got []string
	for _, it := range e.Log("fix") {
		if it.Kind != "start" {
			got = append(got, strings.TrimSpace(e.Show("fix", it.Iteration).Message))
		}
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("iterations judged the messages %q, want %q", got, want)
	}
}

// After a block, the model fixes the bug and then gives an empty final answer. The stop
// that follows carries no fresh promise (Claude Code leaves last_assistant_message out,
// Codex sends null, Gemini repeats the earlier answers in prompt_response, Copilot names no
// message at all), so the loop must not complete on the promise already rejected at
// iteration 1: it must send the agent back for one, and complete when the promise comes.
func TestRealAgentEmptyAnswerAfterBlock(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{
			{Text: "All fixed. <promise>DONE</promise>"},
			{Shell: realagents.FixCommand},
			{Text: ""},
			{Text: "Fixed. <promise>DONE</promise>"},
		})
		e.InstallHooks()
		startLoop(e)
		runTask(t, e, inst, "empty-answer")

		stops := e.StopHooks()
		if len(stops) < 2 || stops[0].Reason() == "" {
			t.Fatalf("want the false claim sent back and a second stop; the hook ran %d times", len(stops))
		}
		st := e.Status("fix")
		if len(stops) != 3 {
			t.Fatalf("the stop hook ran %d times, want 3 (the false claim, the empty answer, the promise)", len(stops))
		}
		reason := strings.TrimSpace(stops[1].Reason())
		if next := mainRequest(t, e, 0, 3); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
			t.Errorf("the empty answer was not sent back, word for word, as the next user message:\nreason: %q\nnext user message: %q", reason, next.LastUser)
		}
		if st.Status != "completed" || st.Iteration != 3 {
			t.Errorf("loop %s at iteration %d (%s), want completed at iteration 3", st.Status, st.Iteration, st.Reason)
		}
		checkLog(t, e, "continue", "continue", "complete")
		e.Fsck()
	})
}

// The model never runs a tool and never promises; the circuit breakers are set high, so
// only the iteration limit (10) would end the loop. Claude Code and Copilot CLI stop
// honouring blocks after 8 in a row and exit; whatever the agent does, the loop must not be
// left active with nobody working on it.
func TestRealAgentBlockCap(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{{Text: "Still looking into it."}})
		e.InstallHooks()
		for _, key := range []string{"loop.sameErrorLimit", "loop.noProgressLimit", "loop.stuckLimit", "loop.reworkLimit"} {
			e.Git("config", key, "50")
		}
		startLoop(e)
		runTask(t, e, inst, "block-cap")

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
			want := capped + " stops honouring a stop hook after 8 blocks in a row"
			if len(stops) != 9 || blocked != 8 || stops[8].Reason() != "" {
				t.Errorf("want 8 stops sent back and the 9th let through; the hook ran %d times and blocked %d", len(stops), blocked)
			}
			if st.Status != "paused" || st.Iteration != 9 || !strings.Contains(st.Reason, want) {
				t.Errorf("loop %s at iteration %d (%s), want paused at iteration 9 saying %q", st.Status, st.Iteration, st.Reason, want)
			}
			if out := e.Loop("status", "fix"); !strings.Contains(out, want) {
				t.Errorf("git loop status does not say why the loop paused:\n%s", out)
			}
		}
		e.Fsck()
	})
}

// blockCaps names the agents that stop honouring blocks after 8 in a row, as the pause
// reason names them.
var blockCaps = map[string]string{"claude": "Claude Code", "copilot": "Copilot CLI"}

// Driver mode: `git loop run … -- AGENT` starts the agent afresh for each iteration, with
// the task first and then the continuation message as its prompt. The first run claims it
// is done without fixing anything and is sent back; the second fixes the bug and promises;
// the loop completes at iteration 2. The agent's own git-loop hook is installed too, as a
// person who also uses the agent interactively has it: under the driver it must stay out of
// the way, so that each run is judged once.
func TestRealAgentDriver(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop,
			mockmodel.Script{{Text: "All fixed. <promise>DONE</promise>"}},
			mockmodel.Script{{Shell: realagents.FixCommand}, {Text: "Fixed. <promise>DONE</promise>"}},
		)
		e.InstallHooks()
		r := e.RunLoop(2*agentTimeout, "fix", "--shape", "tool", "--promise", "DONE", "--gate", "test=go test ./...",
			"--timeout", "2m", "-p", task)
		t.Logf("git loop run -- %s ran in %v, exit %d", inst.Name, r.Took.Round(time.Millisecond), r.Code)
		if r.Code != 0 {
			t.Errorf("git loop run exited %d, want 0 (complete):\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		e.SavePayloads(payloadDir, "driver")

		first, second := mainRequest(t, e, 0, 0), mainRequest(t, e, 1, 0)
		if !strings.Contains(first.LastUser, task) {
			t.Errorf("the first run's prompt is not the task: %q", first.LastUser)
		}
		if !strings.Contains(second.LastUser, "Sub(5, 3) = 8, want 2") || !strings.Contains(second.LastUser, task) {
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
		checkLog(t, e, "continue", "complete")
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
	})
}

// The mock model decides each answer by the conversation's history, whatever the protocol:
// side requests take no step, a retry gets the same answer, an answer the agent dropped
// from its history still counts, and a new conversation gets the next script.
func TestMockModelSteps(t *testing.T) {
	const (
		bash    = `"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`
		execCmd = `"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"},"justification":{"type":"string"}},"required":["cmd"]}}]`
		shell   = `"tools":[{"functionDeclarations":[{"name":"run_shell_command","parameters":{"type":"OBJECT","properties":{"command":{"type":"STRING"}}}}]}]`
		prompt  = `{"role":"user","content":"fix it"}`
		toolUse = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"true"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`
		nudge   = `{"role":"user","content":[{"type":"text","text":"[Your previous response had no visible output. Please continue and produce a user-visible response.]"}]}`
	)
	for _, c := range []struct {
		name, path, body string
		kind             string
		conv, step       int
		answer           string // in the response body
	}{
		{"opening", "/v1/messages", `{"stream":true,` + bash + `,"messages":[` + prompt + `]}`, "main", 0, 0, "All fixed."},
		{"side request", "/v1/messages", `{"messages":[{"role":"user","content":"title?"}]}`, "side", -1, -1, `"text":"OK"`},
		{"after a block", "/v1/messages", `{"stream":true,` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"Stop hook feedback:\nno"}]}`, "main", 0, 1, `"name":"Bash"`},
		{"after the tool", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolUse + `]}`, "main", 0, 2, `"content":[]`},
		{"the agent's retry", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolUse + `,` + nudge + `]}`, "main", 0, 2, `"content":[]`},
		{"the empty answer dropped, then a block", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolUse + `,` + nudge + `,{"role":"user","content":"Stop hook feedback:\nno promise"}]}`, "main", 0, 3, `"text":"Fixed."`},
		{"past the script", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"},{"role":"user","content":"d"},{"role":"assistant","content":"e"},{"role":"user","content":"f"},{"role":"assistant","content":"g"},{"role":"user","content":"h"}]}`, "main", 0, 4, `"text":"Fixed."`},
		{"a second conversation", "/v1/messages", `{` + bash + `,"messages":[{"role":"user","content":"next prompt"}]}`, "main", 1, 0, `"text":"Second."`},
		{"openai", "/v1/responses", `{"stream":true,` + execCmd + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"third"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All fixed."}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"no"}]}]}`, "main", 2, 1, `\"cmd\":\"sed -n p x\"`},
		{"openai schema", "/v1/responses", `{"text":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}},"input":[]}`, "side", -1, -1, `{\"title\":\"OK\"}`},
		{"gemini", "/v1beta/models/m:streamGenerateContent", `{` + shell + `,"contents":[{"role":"user","parts":[{"text":"fourth"}]},{"role":"model","parts":[{"text":"All fixed."}]},{"role":"user","parts":[{"text":"no"}]}]}`, "main", 3, 1, `"command":"sed -n p x"`},
		{"gemini next speaker", "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"who?"}]}],"generationConfig":{"responseJsonSchema":{"type":"OBJECT","properties":{"next_speaker":{"type":"STRING","enum":["model","user"]},"score":{"type":"INTEGER","minimum":1}}}}}`, "side", -1, -1, `next_speaker\":\"user`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := mockmodel.Start(
				mockmodel.Script{{Text: "All fixed."}, {Shell: "sed -n p x"}, {Text: ""}, {Text: "Fixed."}},
				mockmodel.Script{{Text: "Second."}, {Shell: "sed -n p x"}},
			)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if c.conv > 0 { // the conversations before this one, in order
				for i := range c.conv {
					post(t, s.URL+"/v1/messages", `{`+bash+`,"messages":[{"role":"user","content":"conversation `+strconv.Itoa(i)+`"}]}`)
				}
			}
			got := post(t, s.URL+c.path, c.body)
			reqs := s.Requests()
			r := reqs[len(reqs)-1]
			if r.Kind != c.kind || r.Conversation != c.conv || r.Step != c.step {
				t.Errorf("request taken as %s, conversation %d, step %d; want %s, %d, %d", r.Kind, r.Conversation, r.Step, c.kind, c.conv, c.step)
			}
			if !strings.Contains(got, c.answer) && !strings.Contains(streamed(got), c.answer) {
				t.Errorf("answer lacks %s:\n%s", c.answer, got)
			}
		})
	}
}

// streamed joins the pieces of a streamed answer: Anthropic's text and input_json deltas,
// OpenAI's output_text deltas.
func streamed(sse string) string {
	var b strings.Builder
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Delta json.RawMessage `json:"delta"`
		}
		json.Unmarshal([]byte(data), &ev)
		var text string
		var d struct {
			Text        string `json:"text"`
			PartialJSON string `json:"partial_json"`
		}
		if json.Unmarshal(ev.Delta, &text) != nil && json.Unmarshal(ev.Delta, &d) == nil {
			text = d.Text + d.PartialJSON
		}
		b.WriteString(text)
	}
	return b.String()
}

// post posts a JSON body and returns the answer, failing the test unless it is 200 OK.
func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %v %s: %s", url, err, resp.Status, b)
	}
	return string(b)
}

// A loop with a promise and no gate: the model's honest promise at its first stop completes
// it, whatever the agent (issue 16 asks this of Copilot CLI too).
func TestRealAgentPromiseOnly(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{{Text: "Done. <promise>DONE</promise>"}})
		e.InstallHooks()
		e.Loop("start", "fix", "--shape", "tool", "--promise", "DONE", "-p", task)
		runTask(t, e, inst, "promise-only")
		stops := e.StopHooks()
		st := e.Status("fix")
		if len(stops) != 1 || stops[0].Reason() != "" {
			t.Errorf("the stop hook ran %d times; want once, letting the agent stop", len(stops))
		}
		if st.Status != "completed" || st.Iteration != 1 {
			t.Errorf("loop %s at iteration %d (%s), want completed at iteration 1", st.Status, st.Iteration, st.Reason)
		}
		e.Fsck()
	})
}

// The model fixes the bug, then writes its promise inside a fenced code block, where it
// does not count: it is sent back, told so, and its plain promise completes the loop.
func TestRealAgentPromiseInCode(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{
			{Shell: realagents.FixCommand},
			{Text: "Fixed. The promise:\n\n```\n<promise>DONE</promise>\n```"},
			{Text: "Fixed. <promise>DONE</promise>"},
		})
		e.InstallHooks()
		startLoop(e)
		runTask(t, e, inst, "")
		stops := e.StopHooks()
		st := e.Status("fix")
		if len(stops) != 2 {
			t.Fatalf("the stop hook ran %d times, want 2 (the promise in code, the plain one)", len(stops))
		}
		reason := strings.TrimSpace(stops[0].Reason())
		if !strings.Contains(reason, "inside code") {
			t.Errorf("the promise in code was not sent back saying so; the hook answered %s", stops[0].Answer)
		}
		if next := mainRequest(t, e, 0, 2); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
			t.Errorf("the block reason did not reach the model word for word:\nreason: %q\nnext user message: %q", reason, next.LastUser)
		}
		if st.Status != "completed" || st.Iteration != 2 {
			t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
		}
		e.Fsck()
	})
}

// Claude Code runs a subagent (its Agent tool) that fixes the bug and claims done. The
// subagent's stop (SubagentStop) must not advance or end the loop; the main session's stop,
// with its own promise, completes it at iteration 1.
func TestRealAgentClaudeSubagent(t *testing.T) {
	inst := realagents.Require(t, "claude")
	e := realagents.New(t, inst, builtGitLoop(t),
		mockmodel.Script{
			{Tool: "Agent", Input: map[string]any{"description": "Fix the subtraction", "prompt": "Fix Sub in calc/calc.go.",
				"subagent_type": "general-purpose"}},
			{Text: "Fixed. <promise>DONE</promise>"},
		},
		mockmodel.Script{{Shell: realagents.FixCommand}, {Text: "Subagent: all fixed. <promise>DONE</promise>"}},
	)
	e.InstallHooks()
	startLoop(e)
	r := e.RunAgent(agentTimeout, task)
	t.Logf("claude ran in %v", r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("claude exited %d", r.Code)
	}
	e.SavePayloads(payloadDir, "subagent")

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
	checkLog(t, e, "complete")
	e.Fsck()
}

// The model claims done twice without fixing anything; the loop's limit is 2. The second
// stop pauses the loop at its limit and lets the agent stop, which then exits.
func TestRealAgentLimit(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{{Text: "All fixed. <promise>DONE</promise>"}, {Text: "Really fixed. <promise>DONE</promise>"}})
		e.InstallHooks()
		startLoop(e, "--max-iterations", "2")
		runTask(t, e, inst, "")
		stops := e.StopHooks()
		if len(stops) != 2 || stops[0].Reason() == "" || stops[1].Reason() != "" {
			t.Errorf("want the first stop sent back and the second let through; the hook ran %d times", len(stops))
		}
		if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 2 || !strings.Contains(st.Reason, "max iterations") {
			t.Errorf("loop %s at iteration %d (%s), want paused at its limit, iteration 2", st.Status, st.Iteration, st.Reason)
		}
		checkLog(t, e, "continue", "pause")
		e.Fsck()
	})
}

// A loop with a token budget far below what one turn costs: the first stop counts the
// tokens the agent's own log records (Claude Code's transcript, Codex CLI's rollout, Copilot
// CLI's session log, Gemini CLI's chat log), finds the budget spent, pauses the loop and lets the agent stop. The
// count must lie between what the first model call used and what all calls to the mock used.
func TestRealAgentTokenBudget(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{{Text: "All fixed. <promise>DONE</promise>"}})
		e.InstallHooks()
		e.Git("config", "loop.tokenBudget", "1000")
		startLoop(e)
		runTask(t, e, inst, "token-budget")
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
	})
}

// runTask runs the agent once on the task, failing the test if it exits non-zero, and keeps
// the hook payloads it sent as the fixture of that name ("": none).
func runTask(t *testing.T, e *realagents.Env, inst realagents.Installed, fixture string) {
	t.Helper()
	r := e.RunAgent(agentTimeout, task)
	t.Logf("%s ran in %v", inst.Name, r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("%s exited %d", inst.Name, r.Code)
	}
	if fixture != "" {
		e.SavePayloads(payloadDir, fixture)
	}
}

// mockUsage is the tokens the mock reported: for the first main request, and for all
// requests (each answer's input tokens, a quarter of the request's bytes, and its output
// tokens, at most 10).
func mockUsage(e *realagents.Env) (first, all int64) {
	for _, r := range e.Mock.Requests() {
		n := int64(len(r.Body)/4+1) + 10
		all += n
		if r.Kind == "main" && first == 0 {
			first = int64(len(r.Body)/4 + 1)
		}
	}
	return first, all
}

// The model runs a command the loop forbids (loop.mustNot); the stop that follows reads it
// from the agent's log, pauses the loop saying which command, and lets the agent stop.
func TestRealAgentMustNot(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{{Shell: "echo forbidden-step"}, {Text: "Done. <promise>DONE</promise>"}})
		e.InstallHooks()
		e.Git("config", "loop.mustNot", "forbidden-step")
		startLoop(e)
		runTask(t, e, inst, "must-not")
		stops := e.StopHooks()
		if len(stops) != 1 || stops[0].Reason() != "" {
			t.Errorf("want one stop, let through; the hook ran %d times", len(stops))
		}
		if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 1 || !strings.Contains(st.Reason, `must-not command run: "echo forbidden-step"`) {
			t.Errorf("loop %s at iteration %d (%s), want paused at iteration 1 naming the command", st.Status, st.Iteration, st.Reason)
		}
		e.Fsck()
	})
}

// The loop goes on in a resumed session: the first run claims done falsely and meets the
// loop's limit of 1, which pauses it; the person raises the limit and resumes the agent's
// session (Claude Code --continue, Codex exec resume --last, Gemini --resume latest, Copilot
// --continue), where the model fixes the bug and promises. The resumed session is the loop's
// own (the same id), its log goes on where the loop's marks left it, so the token count
// grows, and the loop completes at iteration 2.
func TestRealAgentResume(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{
			{Text: "All fixed. <promise>DONE</promise>"},
			{Shell: realagents.FixCommand},
			{Text: "Fixed. <promise>DONE</promise>"},
		})
		e.InstallHooks()
		e.Git("config", "loop.tokenBudget", "100000000")
		startLoop(e, "--max-iterations", "1")
		if r := e.RunAgent(agentTimeout, task); r.Code != 0 {
			t.Errorf("%s exited %d", inst.Name, r.Code)
		}
		if st := e.Status("fix"); st.Status != "paused" || st.Iteration != 1 {
			t.Fatalf("after the first run: loop %s at iteration %d (%s), want paused at its limit", st.Status, st.Iteration, st.Reason)
		}
		e.Loop("resume", "fix", "--max-iterations", "4")
		r := e.ResumeAgent(agentTimeout, "Go on with the task.")
		t.Logf("%s resumed in %v", inst.Name, r.Took.Round(time.Millisecond))
		if r.Code != 0 {
			t.Errorf("%s (resumed) exited %d", inst.Name, r.Code)
		}
		e.SavePayloads(payloadDir, "resume")
		st := e.Status("fix")
		if st.Status != "completed" || st.Iteration != 2 {
			t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
		}
		checkLog(t, e, "pause", "complete")
		one, two := e.Show("fix", 1), e.Show("fix", 2)
		if one.Session == "" || two.Session != one.Session {
			t.Errorf("the resumed session is %q, the first %q: want the same", two.Session, one.Session)
		}
		if inst.Name != "gemini" && (one.Tokens <= 0 || two.Tokens <= one.Tokens) {
			t.Errorf("tokens counted: %d at iteration 1, %d at iteration 2; want the count to grow in the resumed session", one.Tokens, two.Tokens)
		}
		e.Fsck()
	})
}

// Copilot CLI runs every copy of the hook installed for it: with git-loop's hook installed
// for the user and for the project, both run at each stop. Each stop is still judged once
// (the false claim is iteration 1, the fix iteration 2), and both copies answer it alike.
func TestRealAgentCopilotBothHooks(t *testing.T) {
	inst := realagents.Require(t, "copilot")
	e := realagents.New(t, inst, builtGitLoop(t), mockmodel.Script{
		{Text: "All fixed. <promise>DONE</promise>"},
		{Shell: realagents.FixCommand},
		{Text: "Fixed. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	e.Loop("install", "copilot", "--user")
	startLoop(e)
	r := e.RunAgent(agentTimeout, task)
	t.Logf("copilot ran in %v", r.Took.Round(time.Millisecond))
	if r.Code != 0 {
		t.Errorf("copilot exited %d", r.Code)
	}
	e.SavePayloads(payloadDir, "both-hooks")
	stops := e.StopHooks()
	if len(stops) != 4 {
		t.Fatalf("the hooks ran %d times, want 4 (two copies at each of two stops)", len(stops))
	}
	for i := 0; i < 4; i += 2 {
		a, b := stops[i], stops[i+1]
		if a.Payload != b.Payload {
			t.Errorf("stop %d: the two copies got different payloads:\n%s\n%s", i/2+1, a.Payload, b.Payload)
		}
		if a.Answer != b.Answer {
			t.Errorf("stop %d: the two copies answered differently:\n%s\n%s", i/2+1, a.Answer, b.Answer)
		}
	}
	if stops[0].Reason() == "" || stops[2].Reason() != "" {
		t.Errorf("want the false claim sent back and the fix let through")
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	checkLog(t, e, "continue", "complete")
	e.Fsck()
}

// TestRealAgentClaudeSlashCommand: the /git-loop command `install claude` writes works in the
// real Claude Code with the official ralph-loop plugin's arguments: its command block runs
// before the model is asked, starts the loop bound to the session with the promise as typed
// (a comma in it included), the model sees git-loop's output, and the promise completes the
// loop. Arguments a fenced block cuts short start nothing: the command fails, and Claude Code
// shows the person git-loop's reason and asks the model nothing.
func TestRealAgentClaudeSlashCommand(t *testing.T) {
	inst := realagents.Require(t, "claude")
	e := realagents.New(t, inst, builtGitLoop(t),
		mockmodel.Script{{Shell: realagents.FixCommand}, {Text: "Fixed. <promise>DONE, truly</promise>"}})
	e.InstallHooks()
	r := e.RunAgent(agentTimeout, `/git-loop "Fix Sub in calc/calc.go so that go test passes." --completion-promise "DONE, truly" --max-iterations 5`)
	if r.Code != 0 {
		t.Errorf("claude exited %d", r.Code)
	}
	if first := mainRequest(t, e, 0, 0); !strings.Contains(first.LastUser, "loop main started") {
		t.Errorf("the model was not shown git-loop's start: %q", first.LastUser)
	}
	if st := e.Status("main"); st.Status != "completed" || st.Iteration != 1 || st.Session == "" {
		t.Errorf("loop %s at iteration %d (session %q): %s; want completed at 1, bound to the session", st.Status, st.Iteration, st.Session, st.Reason)
	}

	cut := realagents.New(t, inst, builtGitLoop(t), mockmodel.Script{{Text: "I will not work on it."}})
	cut.InstallHooks()
	r = cut.RunAgent(agentTimeout, "/git-loop Fix this panic:\n```\npanic: assignment to entry in nil map\n```\n--max-iterations 3")
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
	inst := realagents.Require(t, "claude")
	const (
		condition = "Sub's doc comment says that the result may be negative"
		unmet     = "Sub's doc comment does not mention negative results"
		document  = `sed -i.bak 's|// Sub returns a minus b.|// Sub returns a minus b, which may be negative.|' calc/calc.go && rm calc/calc.go.bak`
	)
	e := realagents.New(t, inst, builtGitLoop(t),
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
	startLoop(e, "--judge", condition)
	runTask(t, e, inst, "")

	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Fatalf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	checkLog(t, e, "continue", "complete")
	var blocked []string
	for _, h := range e.StopHooks() {
		if r := h.Reason(); r != "" {
			blocked = append(blocked, r)
		}
	}
	if len(blocked) != 1 || !strings.Contains(blocked[0], unmet) || strings.Contains(blocked[0], "Sub(5, 3)") {
		t.Fatalf("want one block, with the evaluator's reason and not a test failure; got %q", blocked)
	}
	if next := mainRequest(t, e, 0, 2); strings.TrimSpace(inst.Feedback(next.LastUser)) != strings.TrimSpace(blocked[0]) {
		t.Errorf("the evaluator's reason did not reach the model as the next user message:\nreason: %q\nnext user message: %q", blocked[0], next.LastUser)
	}
	for conv, want := range map[int]string{1: "the patch of the fix", 2: "the patch of the comment"} {
		in := mainRequest(t, e, conv, 0).LastUser
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

// With git's maintenance on and the loose-objects threshold below one object, every state
// write starts a roll-up (`git-loop maintenance`) in the background, from the hook the real
// agent runs too: the agent's run and the loop go exactly as without it (the hook answers
// without waiting, and the roll-up holds none of the agent's streams), and the roll-ups
// pack what the loop wrote.
func TestRealAgentHousekeeping(t *testing.T) {
	eachAgent(t, func(t *testing.T, inst realagents.Installed, gitLoop string) {
		e := realagents.New(t, inst, gitLoop, mockmodel.Script{
			{Text: "All fixed. <promise>DONE</promise>"},
			{Shell: realagents.FixCommand},
			{Text: "Fixed. <promise>DONE</promise>"},
		})
		e.Git("config", "maintenance.auto", "true") // the harness turns it off
		e.Git("config", "maintenance.loose-objects.auto", "-1")
		e.InstallHooks()
		startLoop(e)
		runTask(t, e, inst, "")

		if stops := e.StopHooks(); len(stops) != 2 || stops[0].Reason() == "" || stops[1].Reason() != "" {
			t.Errorf("the stop hook ran %d times; want the false claim sent back, then the fix let through", len(stops))
		}
		if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
			t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
		}
		checkLog(t, e, "continue", "complete")
		if err := realagents.AwaitPacked(e.Repo); err != nil {
			t.Fatal(err)
		}
		e.Fsck()
	})
}

// The model "fixes" the failing test by deleting it: with TestSub gone, go test passes and
// the promise comes, but the checks are weaker than at the loop's start, so the stop is sent
// back naming the removed test, and the reason reaches the model as the next user message;
// the loop stays active. The model restores the test, fixes the code and promises again;
// the loop completes at iteration 2, and iteration 1's record keeps the weakening.
func TestRealAgentClaudeDeletesTest(t *testing.T) {
	inst := realagents.Require(t, "claude")
	const (
		// TestSub goes, the file stays (so the weakening is a removed test, not a removed
		// file): go test then passes with no tests to run.
		deleteTest = `printf 'package calc\n' > calc/calc_test.go`
		restore    = `git checkout -- calc/calc_test.go && ` + realagents.FixCommand
		removed    = "TestSub was removed from calc/calc_test.go"
	)
	e := realagents.New(t, inst, builtGitLoop(t), mockmodel.Script{
		{Shell: deleteTest},
		{Text: "The tests pass now. <promise>DONE</promise>"},
		{Shell: restore},
		{Text: "Restored the test and fixed Sub. <promise>DONE</promise>"},
	})
	e.InstallHooks()
	startLoop(e)
	r := e.RunAgent(agentTimeout, task)
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
	if next := mainRequest(t, e, 0, 2); reason == "" || strings.TrimSpace(inst.Feedback(next.LastUser)) != reason {
		t.Errorf("the block reason did not reach the model word for word as the next user message:\nreason: %q\nnext user message: %q", reason, next.LastUser)
	}
	one := e.Show("fix", 1)
	if one.Decision != "continue" {
		t.Errorf("iteration 1 decided %q (%s), want continue: the loop must stay active after a weakened stop", one.Decision, one.Reason)
	}
	if st := e.Status("fix"); st.Status != "completed" || st.Iteration != 2 {
		t.Errorf("loop %s at iteration %d (%s), want completed at iteration 2", st.Status, st.Iteration, st.Reason)
	}
	checkLog(t, e, "continue", "complete")
	show := e.Loop("show", "fix", "1")
	if !strings.Contains(show, "checks weakened since the loop's start:") || !strings.Contains(show, removed) || !strings.Contains(show, "unresolved") {
		t.Errorf("git loop show fix 1 does not list the weakening as unresolved:\n%s", show)
	}
	if show := e.Loop("show", "fix", "2"); strings.Contains(show, "checks weakened") {
		t.Errorf("git loop show fix 2 lists a weakening after the test was restored:\n%s", show)
	}
	e.Fsck()
}
