package kit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

func TestTurnFromLog(t *testing.T) {
	judged := &loop.JudgedMessage{ID: "a1"}
	for _, tc := range []struct {
		name     string
		text, id string
		err      error
		prev     *loop.JudgedMessage
		want     string
		wantPrev *loop.JudgedMessage
		stderr   string
	}{
		{name: "a new answer", text: "done", id: "a2", prev: judged, want: "done", wantPrev: &loop.JudgedMessage{ID: "a2"}},
		{name: "the answer judged at the last stop", text: "done", id: "a1", prev: judged, want: "", wantPrev: judged},
		{name: "no text in the turn", err: fmt.Errorf("%w: /log", sessionlog.ErrNoText), prev: judged, want: "", wantPrev: judged},
		{name: "an unreadable log", err: errors.New("read /log:\nno luck"), prev: judged, want: "", wantPrev: judged, stderr: "no assistant message read (read /log: no luck)"},
		{name: "a first answer", text: "hi", id: "a1", want: "hi", wantPrev: &loop.JudgedMessage{ID: "a1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errb bytes.Buffer
			got, known, prev := TurnFromLog(tc.text, tc.id, tc.err, tc.prev, &errb)
			if got != tc.want || !known || (prev == nil) != (tc.wantPrev == nil) || prev != nil && prev.ID != tc.wantPrev.ID {
				t.Errorf("got %q, %v, %+v; want %q, true, %+v", got, known, prev, tc.want, tc.wantPrev)
			}
			if e := errb.String(); !strings.Contains(e, tc.stderr) || tc.stderr == "" && e != "" || strings.Count(e, "\n") > 1 {
				t.Errorf("stderr %q, want one line holding %q", e, tc.stderr)
			}
		})
	}
}

// TestWaitFirst: the wait runs once, before whichever reader comes first, and not at all
// when no reader runs (a stop where no loop is active).
func TestWaitFirst(t *testing.T) {
	var calls []string
	s := Stop{
		ThisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			calls = append(calls, "turn")
			return "", true, prev
		},
		CountTokens: func(m *loop.TranscriptMark) (*loop.TranscriptMark, error) {
			calls = append(calls, "tokens")
			return m, nil
		},
		ReadCommands: func(m *loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
			calls = append(calls, "commands")
			return nil, m, nil
		},
	}
	s.WaitFirst(func() { calls = append(calls, "wait") })
	if len(calls) != 0 {
		t.Fatalf("waited before any reader ran: %v", calls)
	}
	s.CountTokens(nil)
	s.ThisTurn(nil)
	s.ReadCommands(nil)
	if got := strings.Join(calls, " "); got != "wait tokens turn commands" {
		t.Errorf("calls %q, want one wait, first", got)
	}
	var none Stop
	none.WaitFirst(func() { t.Error("a stop without readers waited") })
	if none.ThisTurn != nil || none.CountTokens != nil || none.ReadCommands != nil {
		t.Error("WaitFirst set a reader the stop had not")
	}
}

// TestInstalledTimeoutAsTheAgentReadsIt: the timeout a stop reads back is the one the agent
// applies: the entry's, in the agent's unit; the agent's default where a hand-edited entry
// states none; past comments, which some agents allow in their settings.
func TestInstalledTimeoutAsTheAgentReadsIt(t *testing.T) {
	a := &Agent{Name: "tool", TimeoutKey: "timeout", TimeoutUnit: time.Millisecond, DefaultTimeout: time.Minute,
		File: HookFile{Grouped: true, CommandKeys: []string{"command"}, Hooks: []FileHook{{Event: "Stop", Command: "git-loop hook tool stop"}}}}
	for _, tc := range []struct {
		name, file string
		want       time.Duration
	}{
		{"the entry's, in the agent's unit", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"git-loop hook tool stop","timeout":660000}]}]}}`, 11 * time.Minute},
		{"none stated: the agent's default", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"git-loop hook tool stop"}]}]}}`, time.Minute},
		{"with comments", "{\n  // mine\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"git-loop hook tool stop\", /* ms */ \"timeout\": 30000}]}]}\n}\n", 30 * time.Second},
		{"another hook only", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify","timeout":5}]}]}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := a.timeoutIn([]byte(tc.file), "stop"); got != tc.want {
				t.Errorf("read back %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInstallSaysCommentsAreTheReason: a settings file with comments, which the agents that
// allow them read, is left as it is, and install says the comments are why.
func TestInstallSaysCommentsAreTheReason(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	mine := "{\n  // mine\n  \"model\": {\"name\": \"x\"}\n}\n"
	if err := os.WriteFile(path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := InstallHooks(path, HookFile{Product: "Tool", Grouped: true, CommandKeys: []string{"command"}, Comments: true,
		Hooks: []FileHook{{Event: "Stop", Command: "git-loop hook tool stop", Entry: HookGroup{}}}})
	if !errors.Is(err, ErrHookFile) || !strings.Contains(err.Error(), "holds comments, which Tool reads") {
		t.Errorf("install said %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != mine {
		t.Errorf("the file changed:\n%s", got)
	}
}
