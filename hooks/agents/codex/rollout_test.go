package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-loop/git-loop/loop"
)

// Rollout lines in the format the tools that read Codex sessions document (see codex.go).
const (
	codexMeta      = `{"timestamp":"2026-11-22T10:00:00Z","type":"session_meta","payload":{"id":"019a","cwd":"/w"}}`
	codexNoInfo    = `{"timestamp":"2026-11-22T10:00:01Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":7.0}}}}`
	codexCount1200 = `{"timestamp":"2026-11-22T10:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":150,"reasoning_output_tokens":50,"total_tokens":1200},"last_token_usage":{"input_tokens":1000,"output_tokens":150,"total_tokens":1200}}}}`
	codexCount2000 = `{"timestamp":"2026-11-22T10:00:09Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1700,"output_tokens":300,"total_tokens":2000}}}}`
	codexShell     = `{"timestamp":"2026-11-22T10:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/w\"}","call_id":"c1"}}`
	codexExec      = `{"timestamp":"2026-11-22T10:00:04Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"git push --force origin main\",\"workdir\":\"/w\"}","call_id":"c2"}}`
	codexLocal     = `{"timestamp":"2026-11-22T10:00:05Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["rm","-rf","build"]}}}`
	codexPatch     = `{"timestamp":"2026-11-22T10:00:06Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch"}}`
	codexMessage   = `{"timestamp":"2026-11-22T10:00:07Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"run: go test"}]}}`
)

func TestCodexTokenTotal(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int64
		ok   bool
	}{
		{codexCount1200, 1200, true},
		{codexCount2000, 2000, true},
		{`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":70,"output_tokens":30,"reasoning_output_tokens":10}}}}`, 100, true}, // no total: input+output (which holds reasoning)
		{codexNoInfo, 0, false},
		{codexMeta, 0, false},
		{codexShell, 0, false},
		{`{"type":"response_item","payload":{"type":"token_count"}}`, 0, false},   // not an event_msg
		{`{"type":"event_msg","payload":{"type":"token_count","info":`, 0, false}, // torn
	} {
		if got, ok := tokenTotal([]byte(tc.line)); got != tc.want || ok != tc.ok {
			t.Errorf("tokenTotal(%.60s…) = %d, %v; want %d, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCodexCommands(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{codexShell, []string{"go test ./..."}},
		{codexExec, []string{"git push --force origin main"}},
		{codexLocal, []string{"rm -rf build"}},
		{`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":\"make lint\"}"}}`, []string{"make lint"}},
		{`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"not json"}}`, nil},
		{`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"command\":[\"x\"]}"}}`, nil},
		{codexPatch, nil},
		{codexMessage, nil},
		{codexCount1200, nil},
	} {
		if got := commandsOf([]byte(tc.line)); !slices.Equal(got, tc.want) {
			t.Errorf("commandsOf(%.60s…) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestCodexCounter: the loop is charged what the rollout's running total grew by since its
// mark, the whole total at first sight, and a line still being written waits.
func TestCodexCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	write := func(lines ...string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			f.WriteString(l)
		}
		f.Close()
	}
	count := counter(path)
	write(codexMeta+"\n", codexNoInfo+"\n", codexCount1200+"\n", codexShell+"\n")
	m1, err := count(nil)
	if err != nil || m1.Tokens != 1200 || m1.Running != 1200 {
		t.Fatalf("first stop: %+v, %v; want 1200 tokens", m1, err)
	}
	write(codexCount2000[:40]) // torn: not counted yet
	m2, err := count(m1)
	if err != nil || m2.Tokens != 1200 || m2.Offset != m1.Offset {
		t.Fatalf("torn line: %+v, %v; want 1200 tokens at the same offset", m2, err)
	}
	write(codexCount2000[40:] + "\n")
	m3, err := count(m2)
	if err != nil || m3.Tokens != 2000 || m3.Running != 2000 {
		t.Fatalf("after the next answer: %+v, %v; want 2000 tokens", m3, err)
	}
	m4, err := count(m3) // nothing new
	if err != nil || m4.Tokens != 2000 {
		t.Fatalf("nothing new: %+v, %v", m4, err)
	}
	other := filepath.Join(t.TempDir(), "rollout-2.jsonl") // a new session: its whole total
	os.WriteFile(other, []byte(codexCount1200+"\n"), 0o644)
	m5, err := counter(other)(m4)
	if err != nil || m5.Tokens != 3200 {
		t.Fatalf("a second rollout: %+v, %v; want 3200 tokens", m5, err)
	}

	cmds, next, err := commandsFrom(path, 0)
	if err != nil || !slices.Equal(cmds, []string{"go test ./..."}) || next == 0 {
		t.Fatalf("commands: %q at %d, %v", cmds, next, err)
	}
	read := commandReader(path)
	write(codexExec+"\n", codexLocal+"\n")
	got, mark, err := read(&loop.TranscriptMark{Path: path, Offset: next})
	if err != nil || !slices.Equal(got, []string{"git push --force origin main", "rm -rf build"}) {
		t.Fatalf("commands since the mark: %q, %v", got, err)
	}
	if again, _, _ := read(mark); len(again) != 0 {
		t.Fatalf("commands read twice: %q", again)
	}
}

// FuzzCodexLine: the rollout line parsers never panic, and a total is never negative.
func FuzzCodexLine(f *testing.F) {
	for _, l := range []string{codexMeta, codexNoInfo, codexCount1200, codexShell, codexExec, codexLocal, codexPatch, codexMessage} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if n, ok := tokenTotal(line); ok && n <= 0 {
			t.Fatalf("total %d reported for %q", n, line)
		}
		commandsOf(line)
	})
}

// TestCodexCounterRestart: a running total that goes back (a restarted process writing to the
// same rollout) does not make the loop forget what was spent after it (found in review).
func TestCodexCounterRestart(t *testing.T) {
	total := func(n int) string {
		return fmt.Sprintf(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"output_tokens":0,"total_tokens":%d}}}}`+"\n", n, n)
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	os.WriteFile(path, []byte(total(100000)), 0o644)
	count := counter(path)
	m1, err := count(nil)
	if err != nil || m1.Tokens != 100000 {
		t.Fatalf("first stop: %+v, %v", m1, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(total(5000))  // the total restarts…
	f.WriteString(total(60000)) // …and reaches 60000
	f.Close()
	m2, err := count(m1)
	if err != nil || m2.Tokens != 160000 || m2.Running != 60000 {
		t.Fatalf("after a restart: %+v, %v; want 160000 tokens, running 60000", m2, err)
	}
}
