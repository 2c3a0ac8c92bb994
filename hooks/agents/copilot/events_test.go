package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
	"github.com/git-loop/git-loop/loop"
)

// copilotLogs is where the real agent suite keeps Copilot CLI's session logs.
var copilotLogs = filepath.Join("..", "..", "..", "testdata", "realagents", "payloads", "copilot")

// fixCommand is the shell command the real-agent scenarios' model runs to fix the bug.
const fixCommand = `sed -i.bak 's/a + b/a - b/' calc/calc.go && rm calc/calc.go.bak`

// Lines as Copilot CLI 1.0.102 writes them, shortened to the fields that matter.
const (
	cpPrompt    = `{"type":"user.message","data":{"content":"Fix Sub.","transformedContent":"<current_datetime>x</current_datetime>\n\nFix Sub.","messageId":"m0"},"id":"u1","timestamp":"2026-11-24T23:57:08.149Z","parentId":"s"}`
	cpClaim     = `{"type":"assistant.message","data":{"messageId":"m1","content":"All fixed. <promise>DONE</promise>","toolRequests":[]},"id":"a1","timestamp":"2026-11-24T23:57:08.273Z","parentId":"u1"}`
	cpToolOnly  = `{"type":"assistant.message","data":{"messageId":"m2","content":"","toolRequests":[{"toolCallId":"t1","name":"bash","arguments":{"command":"go test ./..."}}]},"id":"a2","timestamp":"2026-11-24T23:57:09.160Z","parentId":"u2"}`
	cpFixed     = `{"type":"assistant.message","data":{"messageId":"m3","content":"Fixed. <promise>DONE</promise>","toolRequests":[]},"id":"a3","timestamp":"2026-11-24T23:57:09.310Z","parentId":"a2"}`
	cpFeedback  = `{"type":"user.message","data":{"content":"git-loop: iteration 1 of 10. Not done yet: gate test.","messageId":"m4","delivery":"queued"},"id":"u2","timestamp":"2026-11-24T23:57:09.126Z","parentId":"h1"}`
	cpHookStart = `{"type":"hook.start","data":{"hookInvocationId":"h","hookType":"agentStop","input":{"sessionId":"s1","transcriptPath":"/x/events.jsonl","stopReason":"end_turn","stop_hook_active":false,"timestamp":1795564628279,"cwd":"/r"}},"id":"h1","timestamp":"2026-11-24T23:57:08.279Z","parentId":"a1"}`
	cpHookEnd   = `{"type":"hook.end","data":{"hookInvocationId":"h","hookType":"agentStop","success":true,"output":{"decision":"block","reason":"go on"}},"id":"h2","timestamp":"2026-11-24T23:57:09.107Z","parentId":"h1"}`
	cpTurnEnd   = `{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"e1","timestamp":"2026-11-24T23:57:08.274Z","parentId":"a1"}`
	cpSubAsk    = `{"type":"user.message","agentId":"sub-1","data":{"content":"Look at calc.go"},"id":"su","timestamp":"2026-11-24T23:57:08.300Z","parentId":"a1"}`
	cpSubSays   = `{"type":"assistant.message","agentId":"sub-1","data":{"messageId":"sm","content":"Sub sub-agent: <promise>DONE</promise>"},"id":"sa","timestamp":"2026-11-24T23:57:08.400Z","parentId":"su"}`
	cpOldSub    = `{"type":"assistant.message","data":{"messageId":"om","content":"old sub-agent","parentToolCallId":"t9"},"id":"oa","timestamp":"2026-11-24T23:57:08.400Z","parentId":"su"}`
	cpUsage     = `{"type":"session.usage_record","data":{"usage":{"model":"claude-sonnet-4.5","inputTokens":13250,"outputTokens":10,"cacheReadTokens":1000,"cacheWriteTokens":100,"initiator":"user"}},"id":"r1","timestamp":"2026-11-24T23:57:08.267Z","parentId":"t0"}`
	cpBash      = `{"type":"tool.execution_start","data":{"toolCallId":"t1","toolName":"bash","arguments":{"command":"git push --force origin main","description":"push"},"turnId":"0"},"id":"x1","timestamp":"2026-11-24T23:57:09.162Z","parentId":"a2"}`
	cpView      = `{"type":"tool.execution_start","data":{"toolCallId":"t2","toolName":"view","arguments":{"path":"calc/calc.go"}},"id":"x2","timestamp":"2026-11-24T23:57:09.163Z","parentId":"a2"}`
)

func TestCopilotTurnLine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		text, id   string
		v          sessionlog.Verdict
	}{
		{"an answer", cpClaim, "All fixed. <promise>DONE</promise>", "a1", sessionlog.Text},
		{"only tool requests", cpToolOnly, "", "", sessionlog.Skip},
		{"blank text", strings.Replace(cpClaim, "All fixed. <promise>DONE</promise>", " \\n\\t", 1), "", "", sessionlog.Skip},
		{"a prompt", cpPrompt, "", "", sessionlog.EndsTurn},
		{"a block's reason", cpFeedback, "", "", sessionlog.EndsTurn},
		{"a sub-agent's prompt", cpSubAsk, "", "", sessionlog.Skip},
		{"a sub-agent's answer", cpSubSays, "", "", sessionlog.Skip},
		{"a sub-agent's answer, older versions", cpOldSub, "", "", sessionlog.Skip},
		{"hook.start", cpHookStart, "", "", sessionlog.Skip},
		{"hook.end", cpHookEnd, "", "", sessionlog.Skip},
		{"usage", cpUsage, "", "", sessionlog.Skip},
		{"content not a string", `{"type":"assistant.message","data":{"content":["x"]},"id":"a"}`, "", "", sessionlog.Skip},
		{"torn", cpClaim[:60], "", "", sessionlog.Skip},
		{"another type quoting one", `{"type":"tool.execution_complete","data":{"result":{"content":"\"user.message\""}}}`, "", "", sessionlog.Skip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, id, v := turnLine([]byte(tc.line))
			if text != tc.text || id != tc.id || v != tc.v {
				t.Errorf("got %q, %q, %v; want %q, %q, %v", text, id, v, tc.text, tc.id, tc.v)
			}
		})
	}
}

func TestCopilotThisTurnText(t *testing.T) {
	logtest.CheckTurnText(t, thisTurnText, []logtest.TurnCase{
		{Name: "the claim", Lines: []string{cpPrompt, cpUsage, cpClaim, cpTurnEnd, cpHookStart}, Want: "All fixed. <promise>DONE</promise>", ID: "a1"},
		{Name: "after the block: only this turn", Lines: []string{cpPrompt, cpClaim, cpHookStart, cpHookEnd, cpFeedback, cpToolOnly, cpBash, cpFixed, cpHookStart}, Want: "Fixed. <promise>DONE</promise>", ID: "a3"},
		{Name: "after the block, no text: not the rejected claim", Lines: []string{cpPrompt, cpClaim, cpHookStart, cpHookEnd, cpFeedback, cpToolOnly, cpBash, cpHookStart}, Want: "", ID: ""},
		{Name: "a sub-agent's promise is not the agent's", Lines: []string{cpPrompt, cpClaim, cpSubAsk, cpSubSays, cpOldSub, cpHookStart}, Want: "All fixed. <promise>DONE</promise>", ID: "a1"},
		{Name: "a prompt last", Lines: []string{cpClaim, cpPrompt}, Want: "", ID: ""},
		{Name: "empty", Lines: nil, Want: "", ID: ""},
	})
}

func TestCopilotUsage(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int64
	}{
		{cpUsage, 13260}, // inputTokens holds the cached tokens already: not added again
		{`{"type":"session.usage_record","data":{"usage":{"inputTokens":5}}}`, 5},
		{`{"type":"session.usage_record","data":{"usage":{"inputTokens":-5,"outputTokens":7}}}`, 7},
		{`{"type":"session.usage_record","data":{}}`, 0},
		{`{"type":"session.usage_record","data":{"usage":{"inputTokens":"5"}}}`, 0},
		{`{"type":"assistant.usage","data":{"inputTokens":5,"outputTokens":7}}`, 0}, // ephemeral, never in the log
		{`{"type":"session.shutdown","data":{"note":"session.usage_record","modelMetrics":{"m":{"usage":{"inputTokens":9}}}}}`, 0},
		{cpClaim, 0},
		{cpUsage[:80], 0},
	} {
		if got := lineUsage([]byte(tc.line)); got != tc.want {
			t.Errorf("lineUsage(%.70s…) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

func TestCopilotCommand(t *testing.T) {
	for _, tc := range []struct {
		line, want string
	}{
		{cpBash, "git push --force origin main"},
		{strings.Replace(cpBash, `"bash"`, `"powershell"`, 1), "git push --force origin main"},
		{cpView, ""},
		{strings.Replace(cpBash, `"toolName":"bash"`, `"toolName":"write_agent"`, 1), ""},
		{`{"type":"tool.execution_start","data":{"toolName":"bash","arguments":"rm -rf /"}}`, ""},
		{`{"type":"tool.execution_start","data":{"toolName":"bash","arguments":{"command":["bash","-c","make"]}}}`, "make"},
		{`{"type":"tool.execution_complete","data":{"toolName":"bash","arguments":{"command":"x"},"note":"tool.execution_start"}}`, ""},
		{cpToolOnly, ""}, // the request, not the run
		{cpBash[:90], ""},
	} {
		if got := lineCommand([]byte(tc.line)); got != tc.want {
			t.Errorf("lineCommand(%.70s…) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// copilotFixture is one session log the real agent suite kept, with what each stop said
// and the shell commands run in the whole session.
type copilotFixture struct {
	file     string
	said     []string // at each stop, in order; "" for no text this turn
	commands []string
}

var copilotFixtures = []copilotFixture{
	{"false-claim-session-1.jsonl", []string{"All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"both-hooks-session-1.jsonl", []string{"All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"empty-answer-session-1.jsonl", []string{"All fixed. <promise>DONE</promise>", "", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"block-cap-session-1.jsonl", slices.Repeat([]string{"Still looking into it."}, 9), nil},
	{"promise-only-session-1.jsonl", []string{"Done. <promise>DONE</promise>"}, nil},
	{"token-budget-session-1.jsonl", []string{"All fixed. <promise>DONE</promise>"}, nil},
	{"resume-session-1.jsonl", []string{"All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"driver-session-1.jsonl", []string{"All fixed. <promise>DONE</promise>"}, nil},
	{"driver-session-2.jsonl", []string{"Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
}

// stopsIn returns, for each agentStop of a session log, the log as the hook read it: up to
// and with the stop's hook.start event, and that event's input timestamp.
func stopsIn(t *testing.T, data []byte) (prefixes [][]byte, stamps []json.RawMessage) {
	t.Helper()
	off := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		off += len(line)
		var e struct {
			Type string `json:"type"`
			Data struct {
				HookType string `json:"hookType"`
				Input    struct {
					Timestamp json.RawMessage `json:"timestamp"`
				} `json:"input"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &e) == nil && e.Type == "hook.start" && e.Data.HookType == "agentStop" {
			prefixes = append(prefixes, data[:off])
			stamps = append(stamps, e.Data.Input.Timestamp)
		}
	}
	return prefixes, stamps
}

// copilotShutdownTokens is what the log's last session.shutdown event says the session's
// model calls used in all (input plus output tokens): Copilot's own total, to check the sum
// of the usage records against.
func copilotShutdownTokens(t *testing.T, data []byte) int64 {
	t.Helper()
	var total int64
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct {
			Type string `json:"type"`
			Data struct {
				ModelMetrics map[string]struct {
					Usage struct {
						Input  int64 `json:"inputTokens"`
						Output int64 `json:"outputTokens"`
					} `json:"usage"`
				} `json:"modelMetrics"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "session.shutdown" {
			continue
		}
		total = 0
		for _, m := range e.Data.ModelMetrics {
			total += m.Usage.Input + m.Usage.Output
		}
	}
	if total == 0 {
		t.Fatal("the log has no session.shutdown with model metrics")
	}
	return total
}

// TestCopilotRealLogs reads the session logs real Copilot CLI runs wrote: at each stop, the
// log as the hook saw it (up to the stop's hook.start) holds what the model said in that turn
// and nothing judged before; the usage records, read stop by stop, add up to the total
// Copilot itself reports at shutdown; the shell commands are the ones the model ran.
func TestCopilotRealLogs(t *testing.T) {
	for _, fx := range copilotFixtures {
		t.Run(fx.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(copilotLogs, fx.file))
			if err != nil {
				t.Fatal(err)
			}
			prefixes, stamps := stopsIn(t, data)
			if len(prefixes) != len(fx.said) {
				t.Fatalf("%d stops in the log, want %d", len(prefixes), len(fx.said))
			}
			path := filepath.Join(t.TempDir(), "events.jsonl")
			var (
				judged      *loop.JudgedMessage
				mark, cmark *loop.TranscriptMark
				cmds, ran   []string
			)
			count, commands := counter(path), commandReader(path)
			for i, p := range prefixes {
				if err := os.WriteFile(path, p, 0o644); err != nil {
					t.Fatal(err)
				}
				if !hookStarted(path, stamps[i]) {
					t.Errorf("stop %d: its hook.start is not found at the end of the log", i+1)
				}
				var msg string
				var known bool
				msg, known, judged = thisTurn(path, judged, io.Discard)
				if !known || msg != fx.said[i] {
					t.Errorf("stop %d: said %q (known %v), want %q", i+1, msg, known, fx.said[i])
				}
				if mark, err = count(mark); err != nil {
					t.Fatal(err)
				}
				if ran, cmark, err = commands(cmark); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, ran...)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil { // the rest of the session
				t.Fatal(err)
			}
			if mark, err = count(mark); err != nil {
				t.Fatal(err)
			}
			if ran, _, err = commands(cmark); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, ran...)
			if want := copilotShutdownTokens(t, data); mark.Tokens != want {
				t.Errorf("counted %d tokens stop by stop, Copilot's own total is %d", mark.Tokens, want)
			}
			if !slices.Equal(cmds, fx.commands) {
				t.Errorf("commands %q, want %q", cmds, fx.commands)
			}
		})
	}
}

// TestCopilotThisTurnJudgedOnce: the same answer, read again by a later stop (no new turn in
// between), is not judged twice.
func TestCopilotThisTurnJudgedOnce(t *testing.T) {
	path := logtest.Write(t, logtest.JSONLines(cpPrompt, cpClaim, cpHookStart))
	msg, _, judged := thisTurn(path, nil, io.Discard)
	if msg == "" || judged == nil || judged.ID != "a1" {
		t.Fatalf("first stop: %q, %+v", msg, judged)
	}
	if msg, known, again := thisTurn(path, judged, io.Discard); msg != "" || !known || again != judged {
		t.Errorf("the same answer again: %q (known %v)", msg, known)
	}
	var stderr bytes.Buffer
	if msg, known, _ := thisTurn(filepath.Join(t.TempDir(), "gone.jsonl"), judged, &stderr); msg != "" || !known ||
		!strings.Contains(stderr.String(), "no assistant message read") {
		t.Errorf("an unreadable log: %q (known %v), stderr %q", msg, known, stderr.String())
	}
}

// TestAwaitCopilotStop: the readers wait until the log holds the stop's own hook.start, which
// Copilot writes after every event of the turn; each look that misses it sleeps once (here,
// the sleep appends what Copilot had not written yet).
func TestAwaitCopilotStop(t *testing.T) {
	stamp := json.RawMessage("1795564628279")
	for _, tc := range []struct {
		name   string
		before []string // in the file at first ("-" for no file)
		later  []string // appended by each sleep, one line each
		tries  int
		want   bool
		looks  int
	}{
		{"there already", []string{cpPrompt, cpClaim, cpHookStart}, nil, 10, true, 1},
		{"no file yet", []string{"-"}, []string{cpPrompt, cpClaim, cpTurnEnd, cpHookStart}, 10, true, 5},
		{"the turn still to come", []string{cpPrompt}, []string{cpClaim, cpHookStart}, 10, true, 3},
		{"an earlier stop's hook.start", []string{cpPrompt, cpClaim, strings.Replace(cpHookStart, "1795564628279", "1795564620000", 1)}, nil, 3, false, 3},
		{"another hook's start", []string{cpPrompt, cpClaim, strings.Replace(cpHookStart, "agentStop", "preToolUse", 1)}, nil, 2, false, 2},
		{"never", []string{cpPrompt, cpClaim}, nil, 4, false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			if tc.before[0] != "-" {
				os.WriteFile(path, logtest.JSONLines(tc.before...), 0o644)
			}
			looks, later := 1, tc.later
			sleep := func() {
				looks++
				if len(later) > 0 {
					f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString(later[0] + "\n")
					f.Close()
					later = later[1:]
				}
			}
			if got := awaitStop(path, stamp, tc.tries, sleep); got != tc.want || looks != tc.looks {
				t.Errorf("got %v after %d looks, want %v after %d", got, looks, tc.want, tc.looks)
			}
		})
	}
	if awaitStop("/nonexistent", nil, 10, func() { t.Fatal("waited without a timestamp") }) {
		t.Error("no timestamp: want no wait and false")
	}
}

func TestCopilotStopID(t *testing.T) {
	for _, tc := range []struct {
		session, ts, want string
	}{
		{"s1", "1795564628279", "copilot:s1@1795564628279"},
		{"s1", `"2026-11-22T01:00:00Z"`, `copilot:s1@"2026-11-22T01:00:00Z"`},
		{"s1", "", ""},
		{"s1", "null", ""},
		{"s1", `""`, ""},
		{"", "1", ""},
	} {
		if got := stopID(tc.session, json.RawMessage(tc.ts)); got != tc.want {
			t.Errorf("stopID(%q, %s) = %q, want %q", tc.session, tc.ts, got, tc.want)
		}
	}
}

// TestCopilotBlockCapPayloads: in the payloads of the real block-cap run, Copilot CLI sent
// stop_hook_active false at the first stop and true at each of the eight after a block;
// counted as the cap counts them, the 9th stop is the one whose block it would not honour.
func TestCopilotBlockCapPayloads(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(copilotLogs, "block-cap-*-agent-stop.json"))
	if err != nil || len(files) != 9 {
		t.Fatalf("%d block-cap payloads (%v), want 9", len(files), err)
	}
	st := &loop.State{}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in stopInput
		if err := kit.ReadPayload(bytes.NewReader(data), "agentStop", &in); err != nil {
			t.Fatal(err)
		}
		if in.StopHookActive != (i > 0) {
			t.Errorf("%s: stop_hook_active %v", filepath.Base(f), in.StopHookActive)
		}
		c := blockCap(in.StopHookActive)
		if c.Limit != 8 || c.Agent != "Copilot CLI" || c.Acted == nil || *c.Acted {
			t.Fatalf("cap %+v: want 8 blocks in a row, every block counted", c)
		}
		if c.Continued {
			st.Blocks++
		} else {
			st.Blocks = 1
		}
		if over := st.Blocks > c.Limit; over != (i == 8) {
			t.Errorf("stop %d: over the cap %v", i+1, over)
		}
	}
}

// FuzzCopilotLog: on any bytes, the backwards search finds what a forward reading finds, with
// any chunk size; usage and commands read in pieces, cut anywhere, add up to one read of the
// whole.
func FuzzCopilotLog(f *testing.F) {
	f.Add(logtest.JSONLines(cpPrompt, cpUsage, cpClaim, cpHookStart, cpHookEnd, cpFeedback, cpToolOnly, cpBash, cpView, cpFixed), uint16(7), uint64(1))
	f.Add(append(logtest.JSONLines(cpClaim, cpSubAsk, cpSubSays, cpOldSub), `{"type":"assistant.message","da`...), uint16(64), uint64(2))
	f.Add([]byte("\xff\n{}\n\n"+cpUsage), uint16(1), uint64(3))
	for _, fx := range copilotFixtures[:2] {
		if data, err := os.ReadFile(filepath.Join(copilotLogs, fx.file)); err == nil {
			f.Add(data, uint16(512), uint64(4))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, seed uint64) {
		c := 16 + int(chunk)%4096
		lim := logtest.Limits(c, sessionlog.MaxLineBytes)
		var want, wantID string
		var wantTokens int64
		var wantCmds []string
		for _, line := range bytes.Split(data, []byte("\n")) {
			switch text, id, v := turnLine(line); v {
			case sessionlog.Text:
				want, wantID = text, id
			case sessionlog.EndsTurn:
				want, wantID = "", ""
			}
		}
		complete := data[:bytes.LastIndexByte(data, '\n')+1] // a torn last line waits
		for _, line := range bytes.Split(complete, []byte("\n")) {
			wantTokens += lineUsage(line)
			if c := lineCommand(line); c != "" {
				wantCmds = append(wantCmds, c)
			}
		}
		text, id, err := lastText(bytes.NewReader(data), int64(len(data)), lim)
		if err != nil && !errors.Is(err, sessionlog.ErrNoText) {
			t.Fatal(err)
		}
		if text != want || id != wantID {
			t.Fatalf("backwards %q (%q), forwards %q (%q)", text, id, want, wantID)
		}
		rng := rand.New(rand.NewPCG(seed, 9))
		cuts := []int{rng.IntN(len(data) + 1), rng.IntN(len(data) + 1)}
		slices.Sort(cuts)
		var tokens, next int64
		var cmds []string
		for _, cut := range append(cuts, len(data)) {
			if int64(cut) < next {
				continue
			}
			r := bytes.NewReader(data[:cut])
			n, at, err := usageIn(r, int64(cut), next, lim)
			if err != nil {
				t.Fatal(err)
			}
			ran, at2, err := commandsIn(r, int64(cut), next, lim)
			if err != nil || at2 != at {
				t.Fatalf("commands read to %d, usage to %d: %v", at2, at, err)
			}
			tokens, next, cmds = tokens+n, at, append(cmds, ran...)
		}
		if tokens != wantTokens || !slices.Equal(cmds, wantCmds) {
			t.Fatalf("cuts %v: %d tokens, %q; whole: %d, %q", cuts, tokens, cmds, wantTokens, wantCmds)
		}
	})
}
