package kit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

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
