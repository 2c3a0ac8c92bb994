package qwen

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

var payloads = filepath.Join("..", "..", "..", "testdata", "realagents", "payloads", "qwen")

func TestQwenThisTurn(t *testing.T) {
	for _, tc := range []struct {
		msg  *string
		want string
	}{
		{nil, ""},
		{ptr(""), ""},
		{ptr(noResponseText), ""},
		{ptr(emptyContent), ""},
		{ptr(" (empty content)"), " (empty content)"}, // only Qwen's own stand-in, as it writes it
		{ptr("Fixed. <promise>DONE</promise>"), "Fixed. <promise>DONE</promise>"},
	} {
		if got := thisTurn(tc.msg); got != tc.want {
			t.Errorf("thisTurn(%v) = %q, want %q", deref(tc.msg), got, tc.want)
		}
	}
}

// TestQwenRealPayloads reads every Stop payload Qwen Code 0.24.4 sent in the scenarios: each
// names its session, its chat log and its folder, and gives the turn's last message, a
// stand-in after an empty answer.
func TestQwenRealPayloads(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(payloads, "*-stop.json"))
	if len(files) < 10 {
		t.Fatalf("%d payloads in %s", len(files), payloads)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in stopInput
		if err := kit.ReadPayload(bytes.NewReader(data), "Stop", &in); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if in.HookEventName != "Stop" || in.SessionID == "" || in.Cwd == "" || !strings.HasSuffix(in.TranscriptPath, in.SessionID+".jsonl") || in.LastAssistantMessage == nil {
			t.Errorf("%s: %+v", filepath.Base(f), in)
		}
	}
	var empty stopInput
	data, _ := os.ReadFile(filepath.Join(payloads, "empty-answer-02-stop.json"))
	if err := json.Unmarshal(data, &empty); err != nil || deref(empty.LastAssistantMessage) != emptyContent || thisTurn(empty.LastAssistantMessage) != "" {
		t.Errorf("the empty answer's payload says %q (%v), want Qwen's %q, judged as no message", deref(empty.LastAssistantMessage), err, emptyContent)
	}
}

func TestQwenAnswers(t *testing.T) {
	var out bytes.Buffer
	answers.KeepGoing(&out, loop.Verdict{ForAgent: "Fix <this> & that.", ForUser: "sent back"})
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["decision"] != "block" || got["reason"] != "Fix <this> & that." || got["systemMessage"] != "sent back" {
		t.Errorf("keep going answered %s", out.Bytes())
	}
	if strings.Contains(out.String(), `"continue"`) || strings.Contains(out.String(), `\u003c`) {
		t.Errorf("keep going answered %s: no continue field, no HTML escapes", out.Bytes())
	}
	out.Reset()
	answers.LetStop(&out, &out, "")
	if out.Len() != 0 {
		t.Errorf("letting it stop silently wrote %q", out.String())
	}
	answers.LetStop(&out, nil, "loop fix completed")
	if strings.TrimSpace(out.String()) != `{"systemMessage":"loop fix completed"}` {
		t.Errorf("letting it stop with a word wrote %q", out.String())
	}
}

// TestQwenOnStopWithoutLoop: the hook always exits 0; without a loop, or with a payload it
// cannot read, it lets the agent stop and writes nothing that would block.
func TestQwenOnStopWithoutLoop(t *testing.T) {
	real, _ := os.ReadFile(filepath.Join(payloads, "false-claim-01-stop.json"))
	dir := t.TempDir()
	var p map[string]any
	json.Unmarshal(real, &p)
	p["cwd"] = dir
	here, _ := json.Marshal(p)
	for _, tc := range []struct {
		name, stdin, stderr string
	}{
		{"no loop", string(here), ""},
		{"empty", "", "empty hook payload"},
		{"not JSON", "{", "not valid JSON"},
		{"another event", `{"hook_event_name":"SubagentStop","cwd":` + string(must(json.Marshal(dir))) + `}`, `"SubagentStop"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := onStop(context.Background(), kit.Hook{Agent: &Agent, Event: "stop"}, kit.Streams{Stdin: strings.NewReader(tc.stdin), Stdout: &stdout, Stderr: &stderr})
			if code != 0 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, nothing, %q", code, stdout.String(), stderr.String(), tc.stderr)
			}
		})
	}
}

// FuzzQwenStopPayload: any stdin gives a payload or a one-line error, never a panic, and
// what the turn said is the payload's message or nothing.
func FuzzQwenStopPayload(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(payloads, "*-stop.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"", "{}", "null", `{"last_assistant_message":null}`, `{"last_assistant_message":"[no response text]"}`,
		`{"stop_hook_active":"true"}`, `{"timestamp":1}`, "\xef\xbb\xbf{}", `{"last_assistant_message":"\ud800"}`, "{} {}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in stopInput
		if err := kit.ReadPayload(bytes.NewReader(data), "Stop", &in); err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if msg := thisTurn(in.LastAssistantMessage); msg != "" && (in.LastAssistantMessage == nil || msg != *in.LastAssistantMessage) {
			t.Fatalf("judged %q from %q", msg, data)
		}
	})
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
