package cursor

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
)

// TestAnswersLetStop: every Cursor hook answers with one JSON object, "{}" when it lets the
// agent stop: a payload that is not JSON (said on stderr in one line), and a worktree without
// a loop. (That an aborted generation is not judged needs an active loop to show:
// testdata/script/hook_cursor.txtar.)
func TestAnswersLetStop(t *testing.T) {
	dir := t.TempDir() // no repository: no loop
	for _, tc := range []struct {
		name, event, payload, stderr string
	}{
		{"completed, no loop", "stop", `{"conversation_id":"c","status":"completed","loop_count":0,"workspace_roots":["` + dir + `"]}`, ""},
		{"not JSON", "stop", `{"status":`, "git-loop: hook cursor stop: "},
		{"a response kept where no loop runs", "after-agent-response", `{"conversation_id":"c","text":"done","workspace_roots":["` + dir + `"]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := Agent.EventNamed(tc.event)
			if !ok {
				t.Fatalf("no event %q", tc.event)
			}
			var out, errb bytes.Buffer
			code := e.Run(context.Background(), kit.Hook{Agent: &Agent, Event: tc.event}, kit.Streams{Stdin: strings.NewReader(tc.payload), Stdout: &out, Stderr: &errb})
			if code != 0 || out.String() != "{}\n" {
				t.Errorf("exit %d, answer %q; want 0 and {}", code, out.String())
			}
			if got := errb.String(); !strings.HasPrefix(got, tc.stderr) || (tc.stderr == "" && got != "") || strings.Count(got, "\n") > 1 {
				t.Errorf("stderr %q, want one line starting %q", got, tc.stderr)
			}
		})
	}
}
