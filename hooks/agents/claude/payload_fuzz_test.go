package claude

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func payloadSeeds(f *testing.F) {
	for _, s := range []string{
		stopPayload, subagentStopPayload, oldStopPayload, sessionStartPayload,
		"", " ", "{}", "null", "[]", `"x"`, "{", `{"session_id":`, `{"last_assistant_message":null}`,
		`{"stop_hook_active":"true"}`, `{"hook_event_name":"PreToolUse"}`, "\xef\xbb\xbf{}",
		"{\"last_assistant_message\":\"\xff\"}", `{"a":"\ud800"}`, `{} {}`, `{"x":1e999}`,
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
	} {
		f.Add([]byte(s))
	}
}

// FuzzReadStopInput: any stdin gives a payload or a one-line error, never a panic; what is
// accepted is valid UTF-8 JSON.
func FuzzReadStopInput(f *testing.F) {
	payloadSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := readStopInput(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			if in != (stopInput{}) {
				t.Fatalf("payload %+v returned with error %v", in, err)
			}
			return
		}
		body := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		if !utf8.Valid(body) || !json.Valid(body) || body[0] != '{' {
			t.Fatalf("accepted %q", data)
		}
		switch in.HookEventName {
		case "", "Stop", "SubagentStop":
		default:
			t.Fatalf("accepted event %q", in.HookEventName)
		}
	})
}

// FuzzReadSessionStartInput: the same for SessionStart.
func FuzzReadSessionStartInput(f *testing.F) {
	payloadSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := readSessionStartInput(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if in.HookEventName != "" && in.HookEventName != "SessionStart" {
			t.Fatalf("accepted event %q", in.HookEventName)
		}
	})
}

// FuzzAnswers: whatever text git-loop sends (gate output included), the answer is one line
// of valid JSON that carries the text, invalid UTF-8 bytes each turned into U+FFFD.
func FuzzAnswers(f *testing.F) {
	f.Add("Keep going.", "iteration 2")
	f.Add("<promise>DONE</promise>\n\"q\"\t\\", "")
	f.Add("\xff\xfe\x00\u2028", "\xc3")
	f.Fuzz(func(t *testing.T, reason, system string) {
		var buf bytes.Buffer
		if err := writeBlock(&buf, reason, system); err != nil {
			if reason == "" {
				return
			}
			t.Fatal(err)
		}
		var block struct{ Decision, Reason, SystemMessage string }
		out := buf.Bytes()
		if bytes.Count(out, []byte("\n")) != 1 || json.Unmarshal(out, &block) != nil {
			t.Fatalf("answer %q", out)
		}
		if block.Decision != "block" || block.Reason != string([]rune(reason)) || block.SystemMessage != string([]rune(system)) {
			t.Fatalf("answer %q for %q, %q", out, reason, system)
		}
		buf.Reset()
		if err := writeSessionContext(&buf, reason); err != nil {
			t.Fatal(err)
		}
		if reason == "" {
			if buf.Len() != 0 {
				t.Fatalf("empty context wrote %q", buf.Bytes())
			}
			return
		}
		var ctx struct {
			HookSpecificOutput struct{ HookEventName, AdditionalContext string }
		}
		if err := json.Unmarshal(buf.Bytes(), &ctx); err != nil || ctx.HookSpecificOutput.AdditionalContext != string([]rune(reason)) {
			t.Fatalf("context answer %q: %v", buf.Bytes(), err)
		}
	})
}
