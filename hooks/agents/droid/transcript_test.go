package droid

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
	"github.com/git-loop/git-loop/loop"
)

// fixCommand is the shell command the real-agent scenarios' model runs to fix the bug.
const fixCommand = `sed -i.bak 's/a + b/a - b/' calc/calc.go && rm calc/calc.go.bak`

// Lines as Droid 0.225 writes them (from the real logs), shortened to the fields that matter.
const (
	dSession  = `{"type":"session_start","id":"s1","title":"Fix Sub.","owner":"tester","version":2,"cwd":"/r"}`
	dContext  = `{"type":"message","id":"context-u1","timestamp":"2026-11-28T15:43:04.100Z","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nThe tools listed below are available.</system-reminder>"}]}}`
	dPrompt   = `{"type":"message","id":"u1","parentId":"context-u1","timestamp":"2026-11-28T15:43:04.101Z","message":{"role":"user","content":[{"type":"text","text":"Fix Sub."}],"interactionMode":"auto"}}`
	dClaim    = `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-28T15:43:04.116Z","message":{"role":"assistant","content":[{"type":"text","text":"All fixed. <promise>DONE</promise>"}],"openaiMessageId":"chatcmpl_0001","modelId":"custom:Mock-0","reasoningEffort":"none"}}`
	dHookRun  = `{"type":"message","id":"h1","parentId":"a1","timestamp":"2026-11-28T15:43:04.829Z","message":{"role":"user","content":[],"visibility":"user_only","hookEventName":"Stop","hookCommands":[{"type":"command","command":"git-loop hook droid stop","timeout":660}],"hookStatus":"completed","hookResults":[{"exitCode":0,"stdout":"{\"decision\":\"block\",\"reason\":\"Not done yet.\"}\n","stderr":""}],"hookParentId":"a1"}}`
	dReason   = `{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-11-28T15:43:04.892Z","message":{"role":"user","content":[{"type":"text","text":"Not done yet."}],"interactionMode":"auto"}}`
	dFixCall  = `{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-11-28T15:43:04.925Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"call_0002","name":"Execute","input":{"command":"sed -i.bak 's/a + b/a - b/' calc/calc.go && rm calc/calc.go.bak","riskLevel":"low","riskLevelReason":"Run a command for the task","summary":"Run a command for the task"}}]}}`
	dSaysRuns = `{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-11-28T15:43:04.925Z","message":{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"call_0003","name":"Execute","input":{"command":"echo hi-there","riskLevel":"low"}},{"type":"tool_use","id":"call_0004","name":"Read","input":{"file_path":"calc/calc.go"}}]}}`
	dResult   = `{"type":"message","id":"r2","parentId":"a2","timestamp":"2026-11-28T15:43:04.976Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0002","is_error":false,"content":"Command completed successfully\n\n[Process exited with code 0]"}]}}`
	dNudge    = `{"type":"message","id":"__internal__system-reminder__n1","parentId":"r2","timestamp":"2026-11-28T15:43:09.537Z","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>Continue.</system-reminder>"}],"visibility":"llm_only"}}`
	dGaveUp   = `{"type":"message","id":"g1","parentId":"__internal__system-reminder__n1","timestamp":"2026-11-28T15:43:16.865Z","message":{"role":"user","content":[{"type":"text","text":"The model produced several consecutive responses with no visible output and no tool calls, so the agent stopped to avoid consuming the session without making progress. Send a new message to continue."}],"visibility":"user_only"}}`
	dFixed    = `{"type":"message","id":"a4","parentId":"r2","timestamp":"2026-11-28T15:43:17.446Z","message":{"role":"assistant","content":[{"type":"text","text":"Fixed. <promise>DONE</promise>"}]}}`
	dOutcome  = `{"type":"agent_turn_outcome","turnId":"u1","reason":"completed","resultKind":"text"}`
	dSystem   = `{"type":"message","id":"y1","parentId":"a4","message":{"role":"system","content":[{"type":"text","text":"git-loop: loop fix completed"}],"visibility":"user_only"}}`
)

func TestTurnLine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		text, id   string
		v          sessionlog.Verdict
	}{
		{"an answer", dClaim, "All fixed. <promise>DONE</promise>", "a1", sessionlog.Text},
		{"text before a tool call", dSaysRuns, "Let me look.", "a3", sessionlog.Text},
		{"only a tool call", dFixCall, "", "", sessionlog.Skip},
		{"blank text", strings.Replace(dClaim, "All fixed. <promise>DONE</promise>", " \\n\\t", 1), "", "", sessionlog.Skip},
		{"two text blocks", strings.Replace(dClaim, `{"type":"text","text":"All fixed. <promise>DONE</promise>"}`, `{"type":"text","text":"One."},{"type":"text","text":" "},{"type":"text","text":"<promise>DONE</promise>"}`, 1), "One.\n<promise>DONE</promise>", "a1", sessionlog.Text},
		{"content a string", `{"type":"message","id":"a9","message":{"role":"assistant","content":"Done."}}`, "Done.", "a9", sessionlog.Text},
		{"a prompt", dPrompt, "", "", sessionlog.EndsTurn},
		{"the context before a prompt", dContext, "", "", sessionlog.EndsTurn},
		{"a block's reason", dReason, "", "", sessionlog.EndsTurn},
		{"a tool result", dResult, "", "", sessionlog.Skip},
		{"Droid's nudge to the model", dNudge, "", "", sessionlog.Skip},
		{"Droid's note to the person", dGaveUp, "", "", sessionlog.Skip},
		{"a hook's run", dHookRun, "", "", sessionlog.Skip},
		{"a system message", dSystem, "", "", sessionlog.Skip},
		{"session start", dSession, "", "", sessionlog.Skip},
		{"turn outcome", dOutcome, "", "", sessionlog.Skip},
		{"content not blocks", `{"type":"message","id":"a","message":{"role":"assistant","content":{"text":"x"}}}`, "", "", sessionlog.Skip},
		{"another type with a message", `{"type":"mission_progress_entry","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`, "", "", sessionlog.Skip},
		{"torn", dClaim[:80], "", "", sessionlog.Skip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, id, v := turnLine([]byte(tc.line))
			if text != tc.text || id != tc.id || v != tc.v {
				t.Errorf("got %q, %q, %v; want %q, %q, %v", text, id, v, tc.text, tc.id, tc.v)
			}
		})
	}
}

func TestThisTurnText(t *testing.T) {
	logtest.CheckTurnText(t, thisTurnText, []logtest.TurnCase{
		{Name: "the claim", Lines: []string{dSession, dContext, dPrompt, dClaim}, Want: "All fixed. <promise>DONE</promise>", ID: "a1"},
		{Name: "after the block: only this turn", Lines: []string{dPrompt, dClaim, dHookRun, dReason, dFixCall, dResult, dFixed}, Want: "Fixed. <promise>DONE</promise>", ID: "a4"},
		{Name: "after the block, no text: not the rejected claim", Lines: []string{dPrompt, dClaim, dHookRun, dReason, dFixCall, dResult, dNudge, dNudge, dGaveUp}, Want: "", ID: ""},
		{Name: "the turn's text before its tool call", Lines: []string{dPrompt, dSaysRuns, dResult, dNudge, dGaveUp}, Want: "Let me look.", ID: "a3"},
		{Name: "a hook's run and a system message after the answer", Lines: []string{dPrompt, dClaim, dHookRun, dSystem, dOutcome}, Want: "All fixed. <promise>DONE</promise>", ID: "a1"},
		{Name: "a prompt last", Lines: []string{dClaim, dPrompt}, Want: "", ID: ""},
		{Name: "empty", Lines: nil, Want: "", ID: ""},
	})
}

// TestThisTurnJudgedOnce: a stop whose turn's text is the message the last judged stop read
// gets no message; a new message is judged and remembered.
func TestThisTurnJudgedOnce(t *testing.T) {
	path := logtest.Write(t, logtest.JSONLines(dPrompt, dClaim))
	var errs bytes.Buffer
	msg, known, judged := thisTurn(path, nil, &errs)
	if msg != "All fixed. <promise>DONE</promise>" || !known || judged == nil || judged.ID != "a1" {
		t.Fatalf("first stop: %q, %v, %+v", msg, known, judged)
	}
	if msg, known, again := thisTurn(path, judged, &errs); msg != "" || !known || again != judged {
		t.Errorf("the same message again: %q, %v, %+v; want none, and the judged one kept", msg, known, again)
	}
	if msg, _, _ := thisTurn(filepath.Join(t.TempDir(), "none.jsonl"), judged, &errs); msg != "" || !strings.Contains(errs.String(), "no assistant message read") {
		t.Errorf("a missing log: %q; stderr %q", msg, errs.String())
	}
}

func TestLineCommands(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{dFixCall, []string{fixCommand}},
		{dSaysRuns, []string{"echo hi-there"}}, // Read is no shell
		{strings.Replace(dFixCall, `"name":"Execute"`, `"name":"Read"`, 1), nil},
		{strings.Replace(dFixCall, `"role":"assistant"`, `"role":"user"`, 1), nil},
		{`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"Execute","input":{"command":["bash","-c","make"]}}]}}`, []string{"make"}},
		{`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"Execute","input":"rm -rf /"}]}}`, nil},
		{`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"Execute","input":{"command":""}}]}}`, nil},
		{`{"type":"tool_call","toolName":"Execute","parameters":{"command":"x"},"note":"tool_use"}`, nil}, // exec's stream-json, never in the log
		{dResult, nil},
		{dFixCall[:120], nil},
	} {
		if got := lineCommands([]byte(tc.line)); !slices.Equal(got, tc.want) {
			t.Errorf("lineCommands(%.70s…) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestSessionTokens(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want int64
		bad  bool
	}{
		{`{"tokenUsage":{"inputTokens":100,"outputTokens":10,"cacheCreationTokens":5,"cacheReadTokens":50,"thinkingTokens":7}}`, 165, false},
		{`{"tokenUsage":{"inputTokens":100},"inclusiveTokenUsage":{"inputTokens":300,"outputTokens":20}}`, 320, false}, // the sub-agents' too
		{`{"tokenUsage":{"inputTokens":-5,"outputTokens":3}}`, 3, false},
		{`{"model":"custom:Mock-0"}`, 0, false}, // no model call yet
		{`{"tokenUsage":{"inputTokens":"100"}}`, 0, true},
		{`{"tokenUsage":`, 0, true},
		{``, 0, true},
	} {
		got, err := sessionTokens([]byte(tc.doc))
		if got != tc.want || (err != nil) != tc.bad {
			t.Errorf("sessionTokens(%s) = %d, %v; want %d (error: %v)", tc.doc, got, err, tc.want, tc.bad)
		}
	}
}

// TestTokenCounter: the loop's count goes up by what the session's running total grew by
// since the last stop of the same session; another session's tokens add up; a file whose
// total went down (started over) counts whole; a missing or unreadable file is an error.
func TestTokenCounter(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.settings.json"), filepath.Join(dir, "b.settings.json")
	write := func(path string, input int64) {
		doc, _ := json.Marshal(map[string]any{"tokenUsage": map[string]int64{"inputTokens": input, "outputTokens": 10}})
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mark *loop.TranscriptMark
	step := func(path string, want int64) {
		t.Helper()
		var err error
		if mark, err = tokenCounter(path)(mark); err != nil || mark.Tokens != want || mark.Path != path {
			t.Fatalf("mark %+v, %v; want %d tokens of %s", mark, err, want, path)
		}
	}
	write(a, 90)
	step(a, 100)
	step(a, 100) // nothing new
	write(a, 190)
	step(a, 200)
	write(b, 40) // the loop goes on in another session
	step(b, 250)
	write(b, 0) // started over
	step(b, 260)
	if _, err := tokenCounter(filepath.Join(dir, "none.settings.json"))(mark); err == nil {
		t.Error("a missing settings file counted")
	}
	os.WriteFile(a, []byte("{"), 0o644)
	if _, err := tokenCounter(a)(mark); err == nil || !strings.Contains(err.Error(), a) {
		t.Errorf("a torn settings file: %v, want an error naming it", err)
	}
	if got := usagePath("/h/.factory/sessions/-r/ID.jsonl"); got != "/h/.factory/sessions/-r/ID.settings.json" {
		t.Errorf("usagePath = %s", got)
	}
}

// TestAwaitMessage: the wait ends as soon as the log holds the stop's message (an answer
// followed by the hook runs Droid writes after it), and gives up after its tries when it
// never comes; without a message id it does not wait.
func TestAwaitMessage(t *testing.T) {
	path := logtest.Write(t, logtest.JSONLines(dPrompt))
	looks := 0
	appendAt := func(n int, line string) func() {
		return func() {
			if looks++; looks == n {
				f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(line + "\n")
				f.Close()
			}
		}
	}
	if !awaitMessage(path, "a1", 10, appendAt(3, dClaim)) || looks != 3 {
		t.Errorf("found the message after %d sleeps, want 3", looks)
	}
	looks = 0
	if awaitMessage(path, "a4", 5, appendAt(100, dFixed)) || looks != 4 {
		t.Errorf("a message that never comes: %d sleeps, want 4", looks)
	}
	if awaitMessage(path, "h1", 1, func() {}) {
		t.Error("a line that quotes the id is not the message")
	}
	looks = 0
	if awaitMessage(path, "", 5, appendAt(100, "")) || looks != 0 {
		t.Error("waited without a message id")
	}
	if awaitMessage(filepath.Join(t.TempDir(), "none.jsonl"), "a1", 1, func() {}) {
		t.Error("a missing log holds the message")
	}
}

// FuzzTurnLine: whatever a line holds, the classifier gives text (with the line's id) only
// for an assistant message, ends the turn only for a user's, and never both.
func FuzzTurnLine(f *testing.F) {
	for _, l := range []string{dSession, dContext, dPrompt, dClaim, dHookRun, dReason, dFixCall, dSaysRuns, dResult, dNudge, dGaveUp, dFixed, dOutcome, dSystem, "", "{}", `{"type":"message"}`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		text, id, v := turnLine(line)
		var e logLine
		json.Unmarshal(line, &e)
		switch v {
		case sessionlog.Text:
			if strings.TrimSpace(text) == "" || e.Message.Role != "assistant" || id != e.ID {
				t.Fatalf("%q: text %q (id %q) from a %q line", line, text, id, e.Message.Role)
			}
		case sessionlog.EndsTurn:
			if text != "" || e.Message.Role != "user" || e.Message.HookEventName != "" {
				t.Fatalf("%q ends the turn", line)
			}
		case sessionlog.Skip:
			if text != "" || id != "" {
				t.Fatalf("%q: skipped with text %q", line, text)
			}
		}
	})
}

// FuzzLineCommands: whatever a line holds, the commands read from it are Execute calls of
// an assistant message, none empty.
func FuzzLineCommands(f *testing.F) {
	for _, l := range []string{dFixCall, dSaysRuns, dResult, dClaim, `{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"Execute","input":{"command":["sh","-c","x"]}}]}}`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		cmds := lineCommands(line)
		if len(cmds) == 0 {
			return
		}
		var e logLine
		if json.Unmarshal(line, &e) != nil || e.Message.Role != "assistant" || !bytes.Contains(line, []byte(shellTool)) {
			t.Fatalf("%q: commands %q from a line that runs none", line, cmds)
		}
		for _, c := range cmds {
			if c == "" {
				t.Fatalf("%q: an empty command", line)
			}
		}
	})
}

// FuzzSessionTokens: whatever the settings file holds, its count is never negative, and
// a file that is not a JSON object is an error.
func FuzzSessionTokens(f *testing.F) {
	for _, s := range []string{`{"tokenUsage":{"inputTokens":1}}`, `{"inclusiveTokenUsage":{"outputTokens":-1}}`, `{}`, `[]`, `null`, `{"tokenUsage":null}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		n, err := sessionTokens(doc)
		if n < 0 {
			t.Fatalf("%q: %d tokens", doc, n)
		}
		if err == nil && !json.Valid(doc) {
			t.Fatalf("%q: read as a settings file", doc)
		}
	})
}
