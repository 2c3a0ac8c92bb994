package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/agents"
)

// FuzzAgentHooks: whatever arrives on stdin, every event of every listed agent, dispatched
// as `git loop hook AGENT EVENT` is, exits 0, prints nothing or one JSON object on one line,
// and explains a refusal in at most one line.
func FuzzAgentHooks(f *testing.F) {
	for _, s := range []string{
		"", " ", "{}", "null", "[]", `"x"`, "{", `{"session_id":`, `{"last_assistant_message":null}`,
		`{"stop_hook_active":"true"}`, `{"hook_event_name":"PreToolUse"}`, "\xef\xbb\xbf{}",
		"{\"last_assistant_message\":\"\xff\"}", `{"a":"\ud800"}`, `{} {}`, `{"x":1e999}`,
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
		`{"session_id":"s","transcript_path":"/nonexistent","cwd":"/nonexistent","hook_event_name":"Stop","stop_hook_active":false}`,
		`{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/nonexistent"}`,
		`{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"","last_assistant_message":"x"}`,
		`{"session_id":"s","hook_event_name":"AfterAgent","prompt_response":"<promise>DONE</promise>"}`,
		`{"conversation_id":"c","status":"completed","loop_count":2,"workspace_roots":["/nonexistent"]}`,
		`{"conversation_id":"c","text":"done","workspace_roots":[]}`,
		`{"sessionId":"s","timestamp":1,"cwd":"/nonexistent","stopReason":"end_turn"}`,
		`{"hook_event_name":"session.idle","session_id":"s","directory":"/nonexistent","messages":[{"id":"msg_1","role":"assistant","text":"<promise>DONE</promise>","tokens":{"total":1},"commands":["ls"]}]}`,
		`{"workspace_roots":"not a list"}`, `{"loop_count":"2"}`, `{"timestamp":{"nested":true}}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		t.Chdir(dir) // no repository here: every payload finds no loop
		for _, a := range agents.All {
			for _, e := range a.Events {
				var out, errb bytes.Buffer
				if code := Run(context.Background(), a.Name, e.Name, Streams{Stdin: bytes.NewReader(data), Stdout: &out, Stderr: &errb}); code != 0 {
					t.Fatalf("%s %s exited %d", a.Name, e.Name, code)
				}
				if o := bytes.TrimSpace(out.Bytes()); len(o) > 0 && (!json.Valid(o) || o[0] != '{' || bytes.Contains(o, []byte("\n"))) {
					t.Fatalf("%s %s printed %q, not one JSON object", a.Name, e.Name, out.String())
				}
				if e := strings.TrimSuffix(errb.String(), "\n"); strings.Contains(e, "\n") {
					t.Fatalf("stderr is not one line: %q", e)
				}
			}
		}
	})
}
