package opencode

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

func text(s string) *string { return &s }

// answer is an assistant message with text (nil: not the turn's), tokens and commands.
func answer(id string, txt *string, tokens float64, cmds ...string) message {
	return message{ID: id, Role: "assistant", Text: txt, Tokens: &usage{Total: tokens}, Commands: cmds}
}

func prompt(id string) message { return message{ID: id, Role: "user"} }

func TestThisTurn(t *testing.T) {
	judged := func(id string) *loop.JudgedMessage { return &loop.JudgedMessage{ID: id} }
	for _, tc := range []struct {
		name   string
		msgs   []message
		prev   *loop.JudgedMessage
		want   string
		judged *loop.JudgedMessage
	}{
		{"one answer", []message{prompt("msg_1"), answer("msg_2", text("Done. <promise>DONE</promise>"), 1)}, nil,
			"Done. <promise>DONE</promise>", judged("msg_2")},
		{"the last answer with text", []message{prompt("msg_1"), answer("msg_2", text("Looking."), 1, "ls"), answer("msg_3", text("Fixed."), 1), answer("msg_4", text("  \n"), 1)}, nil,
			"Fixed.", judged("msg_3")},
		{"after a block, an empty answer", []message{prompt("msg_1"), answer("msg_2", nil, 1), prompt("msg_3"), answer("msg_4", text(""), 1)}, judged("msg_2"),
			"", judged("msg_2")},
		{"after a block, only a tool call", []message{prompt("msg_3"), answer("msg_4", text(""), 1, "make")}, judged("msg_2"),
			"", judged("msg_2")},
		{"judged at the last stop", []message{prompt("msg_1"), answer("msg_2", text("Done."), 1)}, judged("msg_2"),
			"", judged("msg_2")},
		{"older than the judged one (the session reverted)", []message{prompt("msg_1"), answer("msg_2", text("Done."), 1)}, judged("msg_5"),
			"", judged("msg_5")},
		{"a mark of another agent's", []message{prompt("msg_1"), answer("msg_2", text("Done."), 1)}, judged("3f2a-uuid"),
			"Done.", judged("msg_2")},
		{"no prompt in the payload (left out)", []message{answer("msg_8", text("Done."), 1)}, nil,
			"Done.", judged("msg_8")},
		{"no message at all", nil, nil, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, known, got := thisTurn(tc.msgs, tc.prev)
			if msg != tc.want || !known || (got == nil) != (tc.judged == nil) || got != nil && *got != *tc.judged {
				t.Errorf("thisTurn = %q, %v, %+v; want %q, true, %+v", msg, known, got, tc.want, tc.judged)
			}
		})
	}
}

func TestTokensAndCommandsSinceTheMark(t *testing.T) {
	in := idleInput{SessionID: "ses_1", Messages: []message{
		prompt("msg_1"), answer("msg_2", nil, 100, "echo a"), answer("msg_3", nil, 200),
		prompt("msg_4"), answer("msg_5", text("x"), 400, "echo b", "", "echo c"),
	}}
	here := sessionMark("ses_1")
	for _, tc := range []struct {
		name       string
		prev       *loop.TranscriptMark
		tokens     int64
		commands   string
		tokensLast string
	}{
		{"first stop: the whole session", nil, 700, "echo a;echo b;echo c", "msg_5"},
		{"since the last stop", &loop.TranscriptMark{Path: here, LastID: "msg_3", Tokens: 300}, 700, "echo b;echo c", "msg_5"},
		{"nothing new", &loop.TranscriptMark{Path: here, LastID: "msg_5", Tokens: 700}, 700, "", "msg_5"},
		{"another session's mark: its tokens kept, this one read whole", &loop.TranscriptMark{Path: sessionMark("ses_0"), LastID: "msg_9", Tokens: 50}, 750, "echo a;echo b;echo c", "msg_5"},
		{"a mark whose message is gone (reverted): later ones only", &loop.TranscriptMark{Path: here, LastID: "msg_35", Tokens: 300}, 700, "echo b;echo c", "msg_5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark, err := in.tokenCounter(tc.prev)
			if err != nil || mark.Tokens != tc.tokens || mark.LastID != tc.tokensLast || mark.Path != here {
				t.Errorf("tokens: %+v, %v; want %d up to %s", mark, err, tc.tokens, tc.tokensLast)
			}
			cmds, cmark, err := in.commandReader(tc.prev)
			if err != nil || strings.Join(cmds, ";") != tc.commands || cmark.LastID != "msg_5" || cmark.Path != here {
				t.Errorf("commands: %q up to %+v, %v; want %q", cmds, cmark, err, tc.commands)
			}
		})
	}
}

func TestUsageCount(t *testing.T) {
	parts := func(in, out, reasoning, read, write float64) *usage {
		u := &usage{Input: in, Output: out, Reasoning: reasoning}
		u.Cache.Read, u.Cache.Write = read, write
		return u
	}
	for _, tc := range []struct {
		name string
		u    *usage
		want int64
	}{
		{"the provider's total", &usage{Total: 7736, Input: 7726, Output: 10}, 7736},
		{"no total: the parts, which OpenCode keeps disjoint", parts(100, 10, 5, 1000, 50), 1165},
		{"negative parts count as none", parts(-5, 10, 0, 0, 0), 10},
		{"none", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.u.count(); got != tc.want {
				t.Errorf("count = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestOnIdleLetsStop: what is not the loop's agent ending a turn is let through unjudged,
// saying why in one line at most; a payload git-loop cannot read too.
func TestOnIdleLetsStop(t *testing.T) {
	t.Chdir(t.TempDir()) // no loop here either way
	for _, tc := range []struct {
		name, payload, stderr string
	}{
		{"a subagent's session", `{"hook_event_name":"session.idle","session_id":"ses_2","parent_id":"ses_1","messages":[]}`, ""},
		{"interrupted", `{"session_id":"ses_1","messages":[{"id":"msg_1","role":"user"},{"id":"msg_2","role":"assistant","error":"MessageAbortedError","text":"Done."}]}`,
			"the turn ended with MessageAbortedError; not judged"},
		{"the model failed", `{"session_id":"ses_1","messages":[{"id":"msg_1","role":"user"},{"id":"msg_2","role":"assistant","error":"APIError"}]}`,
			"the turn ended with APIError; not judged"},
		{"an earlier turn failed", `{"session_id":"ses_1","messages":[{"id":"msg_1","role":"assistant","error":"APIError"},{"id":"msg_2","role":"user"},{"id":"msg_3","role":"assistant"}]}`, ""},
		{"another event", `{"hook_event_name":"session.error","session_id":"ses_1"}`, `payload is for hook event "session.error"`},
		{"not JSON", `session.idle`, "is not valid JSON"},
		{"a token count of the wrong type", `{"session_id":"ses_1","messages":[{"id":"msg_2","role":"assistant","tokens":{"total":"many"}}]}`, `field "messages.tokens.total" is a JSON string`},
		{"messages left out", `{"session_id":"ses_1","omitted":3,"messages":[]}`, "left out the session's 3 oldest messages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := onIdle(context.Background(), kit.Hook{Agent: &Agent, Event: "session-idle"}, kit.Streams{Stdin: strings.NewReader(tc.payload), Stdout: &out, Stderr: &errb})
			if code != 0 || out.Len() != 0 {
				t.Errorf("exit %d, answered %q; want 0 and nothing", code, out.String())
			}
			if e := errb.String(); tc.stderr == "" && e != "" || !strings.Contains(e, tc.stderr) || strings.Count(e, "\n") > 1 {
				t.Errorf("stderr %q, want one line saying %q", e, tc.stderr)
			}
		})
	}
}
