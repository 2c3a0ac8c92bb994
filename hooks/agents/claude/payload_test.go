package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Payloads shaped like Claude Code's (code.claude.com/docs/en/hooks): the common fields,
// the event's own, and fields git-loop does not read (permission_mode, effort, …).
const (
	stopPayload = `{
  "session_id": "4d5611e5-241a-462a-8d15-5122611a9569",
  "transcript_path": "/home/u/.claude/projects/-home-u-src-app/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
  "cwd": "/home/u/src/app",
  "permission_mode": "default",
  "effort": {"level": "high"},
  "hook_event_name": "Stop",
  "stop_hook_active": true,
  "last_assistant_message": "All tests pass.\n\n<promise>ALL TESTS PASS</promise>",
  "background_tasks": [],
  "session_crons": []
}`
	subagentStopPayload = `{"session_id":"abc123","transcript_path":"/t/main.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"SubagentStop","stop_hook_active":false,"agent_id":"def456","agent_type":"Explore","agent_transcript_path":"/t/abc123/subagents/agent-def456.jsonl","last_assistant_message":"Found 3 call sites."}`
	// Before Claude Code 2.1.47: no last_assistant_message (and early ones had no cwd).
	oldStopPayload      = `{"session_id":"abc123","transcript_path":"/t/abc123.jsonl","hook_event_name":"Stop","stop_hook_active":false}`
	sessionStartPayload = `{"session_id":"abc123","transcript_path":"/t/abc123.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"SessionStart","source":"compact","model":"claude-sonnet-4-6"}`
)

func ptr(s string) *string { return &s }

func TestReadStopInput(t *testing.T) {
	tests := []struct {
		name, payload string
		want          stopInput
	}{
		{"stop", stopPayload, stopInput{
			SessionID:            "4d5611e5-241a-462a-8d15-5122611a9569",
			TranscriptPath:       "/home/u/.claude/projects/-home-u-src-app/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
			Cwd:                  "/home/u/src/app",
			HookEventName:        "Stop",
			StopHookActive:       true,
			LastAssistantMessage: ptr("All tests pass.\n\n<promise>ALL TESTS PASS</promise>"),
		}},
		{"subagent stop", subagentStopPayload, stopInput{
			SessionID: "abc123", TranscriptPath: "/t/main.jsonl", Cwd: "/w", HookEventName: "SubagentStop",
			LastAssistantMessage: ptr("Found 3 call sites."),
			AgentID:              "def456", AgentType: "Explore", AgentTranscriptPath: "/t/abc123/subagents/agent-def456.jsonl",
		}},
		{"no message, no cwd", oldStopPayload, stopInput{SessionID: "abc123", TranscriptPath: "/t/abc123.jsonl", HookEventName: "Stop"}},
		{"null message", `{"session_id":"s","last_assistant_message":null}`, stopInput{SessionID: "s"}},
		{"empty message is a message", `{"last_assistant_message":""}`, stopInput{LastAssistantMessage: ptr("")}},
		{"null fields", `{"session_id":null,"cwd":null,"stop_hook_active":null}`, stopInput{}},
		{"no event name", `{"session_id":"s"}`, stopInput{SessionID: "s"}},
		{"empty object", `{}`, stopInput{}},
		{"unknown fields, nested", `{"future":{"a":[1,{"b":null}]},"session_id":"s","x":1e400}`, stopInput{SessionID: "s"}},
		{"white space and newline around", " \n\t" + oldStopPayload + "\r\n\n", stopInput{SessionID: "abc123", TranscriptPath: "/t/abc123.jsonl", HookEventName: "Stop"}},
		{"byte order mark", "\xef\xbb\xbf" + `{"session_id":"s"}`, stopInput{SessionID: "s"}},
		{"unicode and escapes", `{"last_assistant_message":"caf\u00e9 ✓ 🎉 \u2028 \"q\" \\ <b>&"}`, stopInput{LastAssistantMessage: ptr("café ✓ 🎉 \u2028 \"q\" \\ <b>&")}},
		{"lone surrogate escape", `{"last_assistant_message":"a\ud800b"}`, stopInput{LastAssistantMessage: ptr("a\uFFFDb")}},
		{"windows paths", `{"cwd":"C:\\Users\\u\\app","transcript_path":"C:\\Users\\u\\.claude\\t.jsonl"}`, stopInput{Cwd: `C:\Users\u\app`, TranscriptPath: `C:\Users\u\.claude\t.jsonl`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readStopInput(strings.NewReader(tt.payload))
			if err != nil {
				t.Fatalf("readStopInput: %v", err)
			}
			checkStopInput(t, got, tt.want)
		})
	}
}

func checkStopInput(t *testing.T, got, want stopInput) {
	t.Helper()
	gm, wm := got.LastAssistantMessage, want.LastAssistantMessage
	got.LastAssistantMessage, want.LastAssistantMessage = nil, nil
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	switch {
	case (gm == nil) != (wm == nil):
		t.Errorf("LastAssistantMessage = %v, want %v", gm, wm)
	case gm != nil && *gm != *wm:
		t.Errorf("LastAssistantMessage = %q, want %q", *gm, *wm)
	}
}

func TestStopInputSubagent(t *testing.T) {
	for payload, want := range map[string]bool{stopPayload: false, subagentStopPayload: true, oldStopPayload: false} {
		in, err := readStopInput(strings.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		if in.subagent() != want {
			t.Errorf("%s: Subagent() = %v, want %v", in.HookEventName, in.subagent(), want)
		}
	}
}

// exactly returns a Stop payload of exactly n bytes.
func exactly(n int) string {
	head, tail := `{"session_id":"s","last_assistant_message":"`, `"}`
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

func TestReadStopInputErrors(t *testing.T) {
	tests := []struct {
		name    string
		r       io.Reader
		is      error    // errors.Is target, or nil
		mention []string // substrings of the message
	}{
		{"empty", strings.NewReader(""), kit.ErrPayloadEmpty, nil},
		{"white space", strings.NewReader(" \n\r\n\t"), kit.ErrPayloadEmpty, nil},
		{"byte order mark only", strings.NewReader("\xef\xbb\xbf\n"), kit.ErrPayloadEmpty, nil},
		{"endless", endless{}, kit.ErrPayloadTooLarge, nil},
		{"truncated", strings.NewReader(`{"session_id": "abc`), nil, []string{"not valid JSON", "line 1"}},
		{"truncated object", strings.NewReader(`{"session_id": "abc"`), nil, []string{"not valid JSON", "end of JSON input"}},
		{"bad token on line 3", strings.NewReader("{\n  \"session_id\": \"s\",\n  \"cwd\": x\n}"), nil, []string{"line 3, column 10", "invalid character 'x'"}},
		{"trailing comma", strings.NewReader(`{"session_id":"s",}`), nil, []string{"not valid JSON"}},
		{"two objects", strings.NewReader(`{} {}`), nil, []string{"not valid JSON", "after top-level value"}},
		{"not JSON at all", strings.NewReader("hello"), nil, []string{"not valid JSON", "line 1, column 1"}},
		{"array", strings.NewReader(`[{"session_id":"s"}]`), nil, []string{"JSON array, want an object"}},
		{"string", strings.NewReader(`"Stop"`), nil, []string{"JSON string, want an object"}},
		{"null", strings.NewReader(`null`), nil, []string{"JSON null, want an object"}},
		{"number", strings.NewReader(`42`), nil, []string{"JSON number, want an object"}},
		{"wrong type", strings.NewReader(`{"stop_hook_active":"yes"}`), nil, []string{`field "stop_hook_active"`, "string", "boolean"}},
		{"message not a string", strings.NewReader(`{"last_assistant_message":["a"]}`), nil, []string{`field "last_assistant_message"`, "array"}},
		{"invalid UTF-8", strings.NewReader("{\"last_assistant_message\":\"caf\xe9\"}"), nil, []string{"not valid UTF-8", "offset 30"}},
		{"other event", strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`), nil, []string{`"PreToolUse"`, "wrong event"}},
		{"session start payload", strings.NewReader(sessionStartPayload), nil, []string{`"SessionStart"`, "not Stop or SubagentStop"}},
		{"read error", io.MultiReader(strings.NewReader(`{"session_id"`), failing{}), errBroken, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := readStopInput(tt.r)
			if err == nil {
				t.Fatalf("readStopInput = %+v, want an error", in)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %q", err, tt.is)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if in != (stopInput{}) {
				t.Errorf("readStopInput returned %+v with its error", in)
			}
		})
	}
}

func TestReadStopInputBounds(t *testing.T) {
	in, err := readStopInput(strings.NewReader(exactly(kit.MaxPayload)))
	if err != nil {
		t.Fatalf("a payload of exactly kit.MaxPayload bytes: %v", err)
	}
	if in.LastAssistantMessage == nil || len(*in.LastAssistantMessage) < kit.MaxPayload-100 {
		t.Fatal("the message of a kit.MaxPayload payload was not read whole")
	}
	// A longer payload is read on and judged: a very long message is no reason to let the
	// agent stop unjudged.
	in, err = readStopInput(strings.NewReader(exactly(kit.MaxPayload + 1<<20)))
	if err != nil || in.LastAssistantMessage == nil || len(*in.LastAssistantMessage) < kit.MaxPayload {
		t.Fatalf("a payload over kit.MaxPayload: %v", err)
	}
	// An endless writer is read a bounded amount, not forever.
	r := &countingReader{r: endless{}}
	if _, err := readStopInput(r); !errors.Is(err, kit.ErrPayloadTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if r.n > kit.MaxLongPayload+1 {
		t.Errorf("read %d bytes, want at most %d", r.n, kit.MaxLongPayload+1)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

var errBroken = errors.New("broken pipe")

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errBroken }

func TestReadSessionStartInput(t *testing.T) {
	for _, source := range []string{"startup", "resume", "clear", "compact"} {
		payload := strings.Replace(sessionStartPayload, `"compact"`, `"`+source+`"`, 1)
		in, err := readSessionStartInput(strings.NewReader(payload))
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		want := sessionStartInput{SessionID: "abc123", TranscriptPath: "/t/abc123.jsonl", Cwd: "/w", HookEventName: "SessionStart", Source: source}
		if in != want {
			t.Errorf("got %+v, want %+v", in, want)
		}
	}
	if in, err := readSessionStartInput(strings.NewReader(`{"session_id":"s"}`)); err != nil || in.SessionID != "s" || in.Source != "" {
		t.Errorf("minimal payload: %+v, %v", in, err)
	}
	for name, payload := range map[string]string{
		"empty":      "",
		"stop":       stopPayload,
		"malformed":  `{"source":`,
		"wrong type": `{"source":1}`,
	} {
		if in, err := readSessionStartInput(strings.NewReader(payload)); err == nil {
			t.Errorf("%s: got %+v, want an error", name, in)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

// hookAnswer is Claude Code's documented answer of a command hook (the fields git-loop
// may use); decoding with DisallowUnknownFields proves an answer uses no others.
type hookAnswer struct {
	Continue           *bool   `json:"continue"`
	StopReason         *string `json:"stopReason"`
	SuppressOutput     *bool   `json:"suppressOutput"`
	Decision           *string `json:"decision"`
	Reason             *string `json:"reason"`
	SystemMessage      *string `json:"systemMessage"`
	HookSpecificOutput *struct {
		HookEventName     string  `json:"hookEventName"`
		AdditionalContext *string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func decodeAnswer(t *testing.T, out []byte) hookAnswer {
	t.Helper()
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Errorf("answer is not one line: %q", out)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var a hookAnswer
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	if dec.More() {
		t.Errorf("answer %q holds more than one JSON value", out)
	}
	return a
}

func TestWriteBlock(t *testing.T) {
	tests := []struct {
		name, reason, system string
		wantReason           string
	}{
		{"plain", "Keep going: the test gate fails.", "git-loop: iteration 3 of 10", "Keep going: the test gate fails."},
		{"no system message", "Fix the build.", "", "Fix the build."},
		{"markup and quotes", "Say <promise>DONE</promise> only when \"done\" & true.\n\tNext: `go test`", "x", "Say <promise>DONE</promise> only when \"done\" & true.\n\tNext: `go test`"},
		{"invalid UTF-8 from a gate", "output: \xff\xfe caf\xe9", "", "output: \uFFFD\uFFFD caf\uFFFD"},
		{"control characters", "a\x00b\x1bc\u2028d", "", "a\x00b\x1bc\u2028d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeBlock(&buf, tt.reason, tt.system); err != nil {
				t.Fatal(err)
			}
			a := decodeAnswer(t, buf.Bytes())
			if a.Decision == nil || *a.Decision != "block" {
				t.Errorf("decision = %v, want block", a.Decision)
			}
			if a.Reason == nil || *a.Reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", deref(a.Reason), tt.wantReason)
			}
			switch {
			case tt.system == "" && a.SystemMessage != nil:
				t.Errorf("systemMessage = %q, want it left out", *a.SystemMessage)
			case tt.system != "" && (a.SystemMessage == nil || *a.SystemMessage != tt.system):
				t.Errorf("systemMessage = %q, want %q", deref(a.SystemMessage), tt.system)
			}
			if a.Continue != nil || a.HookSpecificOutput != nil || a.StopReason != nil {
				t.Errorf("answer has fields a block does not need: %s", buf.Bytes())
			}
		})
	}
	if !bytes.Contains(mustBlock(t, "<promise>"), []byte("<promise>")) {
		t.Error("the answer escapes HTML characters; keep them readable")
	}
}

func mustBlock(t *testing.T, reason string) []byte {
	var buf bytes.Buffer
	if err := writeBlock(&buf, reason, ""); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deref(s *string) string {
	if s == nil {
		return "<missing>"
	}
	return *s
}

func TestWriteBlockErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := writeBlock(&buf, "", "msg"); err == nil || buf.Len() != 0 {
		t.Errorf("empty reason: err %v, wrote %q; want an error and nothing written", err, buf.String())
	}
	if err := writeBlock(failingWriter{}, "r", ""); !errors.Is(err, errBroken) {
		t.Errorf("failing writer: err = %v", err)
	}
	w := &countingWriter{}
	if err := writeBlock(w, strings.Repeat("long reason ", 10000), "s"); err != nil || w.writes != 1 {
		t.Errorf("err %v, %d writes; want the answer in one write", err, w.writes)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errBroken }

type countingWriter struct{ writes int }

func (c *countingWriter) Write(p []byte) (int, error) { c.writes++; return len(p), nil }

func TestWriteSessionContext(t *testing.T) {
	for _, ctx := range []string{
		"git-loop: loop \"fix\" is active (iteration 3 of 10). Task: make the tests pass.",
		"multi\nline <promise>P</promise> \u00e9 \xff",
	} {
		var buf bytes.Buffer
		if err := writeSessionContext(&buf, ctx); err != nil {
			t.Fatal(err)
		}
		a := decodeAnswer(t, buf.Bytes())
		h := a.HookSpecificOutput
		if h == nil || h.HookEventName != "SessionStart" || h.AdditionalContext == nil {
			t.Fatalf("answer %s lacks hookSpecificOutput for SessionStart", buf.Bytes())
		}
		if want := string([]rune(ctx)); *h.AdditionalContext != want {
			t.Errorf("additionalContext = %q, want %q", *h.AdditionalContext, want)
		}
		if a.Decision != nil || a.Reason != nil || a.SystemMessage != nil || a.Continue != nil {
			t.Errorf("answer has other fields: %s", buf.Bytes())
		}
	}
	var buf bytes.Buffer
	if err := writeSessionContext(&buf, ""); err != nil || buf.Len() != 0 {
		t.Errorf("empty context: err %v, wrote %q; want nothing", err, buf.String())
	}
	if err := writeSessionContext(failingWriter{}, "c"); !errors.Is(err, errBroken) {
		t.Errorf("failing writer: err = %v", err)
	}
}

// TestOversizedPayloadDrained: an agent writing a long payload sees its write complete, not
// a broken pipe, even when the payload is refused (here: not JSON).
func TestOversizedPayloadDrained(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := w.Write(bytes.Repeat([]byte("x"), kit.MaxPayload+4<<20))
		w.Close()
		wrote <- err
	}()
	if _, err := readStopInput(r); err == nil {
		t.Fatal("readStopInput accepted a payload of x's")
	}
	r.Close()
	if err := <-wrote; err != nil {
		t.Fatalf("the agent's write failed: %v", err)
	}
}
