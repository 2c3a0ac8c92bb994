package claude

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
	"github.com/git-loop/git-loop/loop"
)

// TestClaudeThisTurn: only what the agent said this turn is judged. An absent or empty
// last_assistant_message falls back to the transcript's last turn, which ends at the stop
// hook's feedback and never returns an entry judged before.
func TestClaudeThisTurn(t *testing.T) {
	rejected := logtest.JSONLines(promptLine("fix it"), `{"type":"assistant","uuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"All fixed. <promise>DONE</promise>"}]}}`,
		hookFeedbackLine("Stop hook feedback:\ntest fails"), toolUseLine("m2", 1), toolResultLine("ok"))
	fresh := logtest.JSONLines(promptLine("fix it"), `{"type":"assistant","uuid":"a2","message":{"id":"m2","content":[{"type":"text","text":"Fixed. <promise>DONE</promise>"}]}}`)
	tests := []struct {
		name       string
		payload    *string
		transcript []byte
		prev       *loop.JudgedMessage
		want       string
		wantID     string
	}{
		{"the payload's message", ptr("Fixed. <promise>DONE</promise>"), rejected, nil, "Fixed. <promise>DONE</promise>", ""},
		{"absent after an empty answer: not the rejected promise", nil, rejected, nil, "", ""},
		{"empty: the transcript's turn holds the promise", ptr(""), fresh, nil, "Fixed. <promise>DONE</promise>", "a2"},
		{"absent: the transcript's turn", nil, fresh, nil, "Fixed. <promise>DONE</promise>", "a2"},
		{"an entry judged at an earlier stop", nil, fresh, &loop.JudgedMessage{ID: "a2"}, "", "a2"},
		{"no transcript", nil, nil, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := stopInput{LastAssistantMessage: tt.payload}
			if tt.transcript != nil {
				in.TranscriptPath = logtest.Write(t, tt.transcript)
			}
			msg, known, judged := thisTurn(in, tt.prev, io.Discard)
			id := ""
			if judged != nil {
				id = judged.ID
			}
			if msg != tt.want || !known || id != tt.wantID {
				t.Errorf("got %q (known %v, id %q), want %q (id %q)", msg, known, id, tt.want, tt.wantID)
			}
		})
	}
}

// TestTokenBudgetCountsTheTurnsAnswer: when the Stop hook starts, Claude Code has not yet
// written the answer that ended the turn (at a new session's first stop, not even the
// transcript); the counter waits (bounded) for it, so the budget counts that answer too.
func TestTokenBudgetCountsTheTurnsAnswer(t *testing.T) {
	defer func(d time.Duration) { answerWait = d }(answerWait)
	answerWait = time.Minute // the late writes below land well within it, however busy the machine
	path := logtest.Write(t, logtest.JSONLines(promptLine("go"),
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"first"}],"usage":{"input_tokens":300,"output_tokens":50}}}`,
		hookFeedbackLine("Stop hook feedback:\ngo on")))
	late := `{"type":"assistant","uuid":"a2","message":{"id":"m2","content":[{"type":"text","text":"second"}],"usage":{"input_tokens":300,"output_tokens":50}}}` + "\n"
	go func() {
		time.Sleep(300 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(late)
			f.Close()
		}
	}()
	answer := "second"
	mark, err := transcriptCounter(path, &answer)(nil)
	if err != nil || mark.Tokens != 700 {
		t.Fatalf("counted %v, %v; want 700 tokens, the late answer's included", mark, err)
	}
	// The first stop of a new session may find no transcript at all yet.
	fresh := filepath.Join(t.TempDir(), "new-session.jsonl")
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(fresh, logtest.JSONLines(promptLine("go"), late[:len(late)-1]), 0o644)
	}()
	if mark, err := transcriptCounter(fresh, &answer)(nil); err != nil || mark.Tokens != 350 {
		t.Fatalf("a transcript written after the hook started: counted %v, %v; want 350 tokens", mark, err)
	}
	// A transcript that never gets the answer is counted as it is once the wait ends (the
	// wait's bound is answerWait; a stop held forever would hit the test's own timeout).
	answerWait = 100 * time.Millisecond
	never := "an answer the transcript never gets"
	if mark, err := transcriptCounter(path, &never)(nil); err != nil || mark.Tokens != 700 {
		t.Fatalf("a transcript that never catches up: %v, %v; want what it holds, 700 tokens", mark, err)
	}
}

// TestTurnRanTool: Claude Code's count of blocks in a row resets when a tool runs between
// them; the transcript's last turn, since the stop hook's feedback, says whether one did.
func TestTurnRanTool(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"a tool since the feedback", []string{promptLine("go"), textLine("m1", "x", 1), hookFeedbackLine("Stop hook feedback: go on"), toolUseLine("m2", 1), toolResultLine("ok")}, true},
		{"only text since the feedback", []string{promptLine("go"), toolUseLine("m1", 1), toolResultLine("ok"), hookFeedbackLine("Stop hook feedback: go on"), textLine("m2", "thinking", 1)}, false},
		{"a tool before the prompt does not count", []string{toolUseLine("m1", 1), toolResultLine("ok"), promptLine("go"), textLine("m2", "x", 1)}, false},
		{"empty", []string{progressLine("p")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TurnRanTool(logtest.Write(t, logtest.JSONLines(tc.lines...)))
			if err != nil || got != tc.want {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
