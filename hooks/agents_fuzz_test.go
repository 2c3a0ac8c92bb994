package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// agentHooks are the other agents' handlers, as dispatched.
var agentHooks = map[string]func(Streams) int{
	"codex stop":                  func(io Streams) int { return CodexStop(context.Background(), io) },
	"gemini after-agent":          func(io Streams) int { return GeminiAfterAgent(context.Background(), io) },
	"cursor stop":                 func(io Streams) int { return CursorStop(context.Background(), io) },
	"cursor after-agent-response": CursorAfterResponse,
	"copilot agent-stop":          func(io Streams) int { return CopilotAgentStop(context.Background(), io) },
}

// FuzzAgentHooks: whatever arrives on stdin, every agent's hook exits 0, prints nothing or
// one JSON object on one line, and explains a refusal in at most one line.
func FuzzAgentHooks(f *testing.F) {
	payloadSeeds(f)
	for _, s := range []string{
		`{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"","last_assistant_message":"x"}`,
		`{"session_id":"s","hook_event_name":"AfterAgent","prompt_response":"<promise>DONE</promise>"}`,
		`{"conversation_id":"c","status":"completed","loop_count":2,"workspace_roots":["/nonexistent"]}`,
		`{"conversation_id":"c","text":"done","workspace_roots":[]}`,
		`{"sessionId":"s","timestamp":1,"cwd":"/nonexistent","stopReason":"end_turn"}`,
		`{"workspace_roots":"not a list"}`, `{"loop_count":"2"}`, `{"timestamp":{"nested":true}}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		t.Chdir(dir) // no repository here: every payload finds no loop
		for name, hook := range agentHooks {
			var out, errb bytes.Buffer
			if code := hook(Streams{Stdin: bytes.NewReader(data), Stdout: &out, Stderr: &errb}); code != 0 {
				t.Fatalf("%s exited %d", name, code)
			}
			if o := bytes.TrimSpace(out.Bytes()); len(o) > 0 && (!json.Valid(o) || o[0] != '{' || bytes.Contains(o, []byte("\n"))) {
				t.Fatalf("%s printed %q, not one JSON object", name, out.String())
			}
			if e := strings.TrimSuffix(errb.String(), "\n"); strings.Contains(e, "\n") {
				t.Fatalf("%s: stderr is not one line: %q", name, e)
			}
		}
	})
}
