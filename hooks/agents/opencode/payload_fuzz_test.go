package opencode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// FuzzIdlePayload: whatever the plugin (or anything else) sends, reading it never panics,
// and what a stop reads of it holds: the message judged is an answer of the payload, after
// the last judged one; tokens only grow, and the marks move forward to a message of the
// payload; the commands read are the payload's.
func FuzzIdlePayload(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "realagents", "payloads", "opencode", "*.json"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, "msg_0")
		}
	}
	for _, s := range []string{
		`{}`, `{"messages":null}`, `{"messages":[{}]}`, `{"messages":[{"role":"assistant","text":null,"tokens":null}]}`,
		`{"session_id":"ses_1","messages":[{"id":"msg_2","role":"assistant","tokens":{"total":1e18,"cache":{"read":-1}},"commands":[""]}]}`,
		`{"session_id":"ses_1","messages":[{"id":"msg_1","role":"user"},{"id":"msg_3","role":"assistant","text":"a"},{"id":"msg_2","role":"assistant","text":"b"}]}`,
		`{"messages":[{"id":"","role":"assistant","text":"x","tokens":{"input":1.5}}]}`,
	} {
		f.Add([]byte(s), "msg_2")
	}
	f.Fuzz(func(t *testing.T, data []byte, judged string) {
		var in idleInput
		if kit.ReadPayload(strings.NewReader(string(data)), "session.idle", &in) != nil {
			return
		}
		in.turnError()
		prev := &loop.JudgedMessage{ID: judged}
		msg, known, got := thisTurn(in.Messages, prev)
		if !known || got == nil {
			t.Fatalf("thisTurn = %q, %v, %v", msg, known, got)
		}
		if got != prev {
			i := slices.IndexFunc(in.Messages, func(m message) bool {
				return m.ID == got.ID && m.Role == "assistant" && m.Text != nil && *m.Text == msg
			})
			if i < 0 || notAfter(got.ID, judged) {
				t.Fatalf("judged %q (%s), not an answer of the payload after %q", msg, got.ID, judged)
			}
		}
		mark := &loop.TranscriptMark{Path: sessionMark(in.SessionID), LastID: judged, Tokens: 10}
		next, err := in.tokenCounter(mark)
		if err != nil || next.Tokens < mark.Tokens || next.LastID != judged && !slices.ContainsFunc(in.Messages, func(m message) bool { return m.ID == next.LastID }) {
			t.Fatalf("tokens: %+v, %v after %+v", next, err, mark)
		}
		cmds, cmark, err := in.commandReader(nil)
		var all int
		for _, m := range in.Messages {
			all += len(m.Commands)
		}
		if err != nil || len(cmds) > all || cmark.Path != mark.Path {
			t.Fatalf("commands %q of %d, mark %+v, %v", cmds, all, cmark, err)
		}
	})
}
