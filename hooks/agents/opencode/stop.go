package opencode

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// idleInput is what git-loop's plugin sends at OpenCode's session.idle, whose own event
// carries only the session's id: the plugin adds what it reads of the session through
// OpenCode's SDK client (client.session.get and .messages).
type idleInput struct {
	HookEventName string `json:"hook_event_name"` // "session.idle"
	SessionID     string `json:"session_id"`
	// ParentID is the session's parent: set for a subagent's session (the task tool's).
	ParentID  string `json:"parent_id"`
	Directory string `json:"directory"` // the directory OpenCode works in
	// Omitted is how many of the session's oldest messages the plugin left out, to bound
	// the payload; Messages are the others, oldest first.
	Omitted  int       `json:"omitted"`
	Messages []message `json:"messages"`
}

// message is the plugin's digest of one message of the session. OpenCode's message ids
// ascend with their creation ("msg_" then the time in hex), and each model call is an
// assistant message of its own with its own tokens; at session.idle every message is
// complete.
type message struct {
	ID   string `json:"id"`
	Role string `json:"role"` // "user" or "assistant"
	// Tokens are an answer's usage, as OpenCode records it.
	Tokens *usage `json:"tokens"`
	// Error is the name of the error an answer ended with (MessageAbortedError when the
	// person interrupted it), or "".
	Error string `json:"error"`
	// Text is an answer's text, for the answers since the last prompt only (nil for the
	// others): the turn's, which the stop judges.
	Text *string `json:"text"`
	// Commands are the commands of the answer's shell (bash tool) calls.
	Commands []string `json:"commands"`
}

// usage is an answer's tokens as OpenCode keeps them: Total is the provider's count, when
// it gives one; Input leaves out the cache reads and writes and Output the reasoning, so
// that the parts add up to it. Numbers are read as floats, so that a count written as
// 7736.0 is still one.
type usage struct {
	Total     float64 `json:"total"`
	Input     float64 `json:"input"`
	Output    float64 `json:"output"`
	Reasoning float64 `json:"reasoning"`
	Cache     struct {
		Read  float64 `json:"read"`
		Write float64 `json:"write"`
	} `json:"cache"`
}

// count is the answer's tokens: the provider's total, else the sum of the parts (negative
// counts, which no provider reports, count as none; a count past maxCount, which none
// reports either, as maxCount, so that the loop's sum stays a count and its budget holds).
func (u *usage) count() int64 {
	if u == nil {
		return 0
	}
	n := u.Total
	if n <= 0 {
		n = 0
		for _, v := range []float64{u.Input, u.Output, u.Reasoning, u.Cache.Read, u.Cache.Write} {
			n += max(v, 0)
		}
	}
	return int64(min(n, maxCount))
}

// maxCount bounds one answer's tokens: far above any model's, and far enough below
// math.MaxInt64 that a loop's sum of them cannot wrap.
const maxCount = 1 << 50

// onIdle answers the plugin's session-idle hook: {"decision":"block","reason":…} makes the
// plugin send the reason as the session's next prompt; anything else lets the session
// stop, "systemMessage" being shown to the person (a toast in the TUI).
func onIdle(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in idleInput
	if !kit.ReadAgentPayload(h, io, "session.idle", &in, answers) {
		return 0
	}
	if in.HookEventName != "" && in.HookEventName != "session.idle" {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, kit.WrongEvent(in.HookEventName, "session.idle"))
		return 0
	}
	if in.ParentID != "" { // a subagent's session ended: the loop's agent goes on
		return 0
	}
	if err := in.turnError(); err != "" { // the person interrupted the turn, or OpenCode failed it
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: the turn ended with %s; not judged, letting the agent stop\n", h, err)
		return 0
	}
	if in.Omitted > 0 {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: the plugin left out the session's %d oldest messages to bound its payload: their tokens and commands are not counted\n", h, in.Omitted)
	}
	stop := kit.Stop{Dirs: []string{in.Directory}, Session: in.SessionID, StopID: in.stopID(),
		ThisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return thisTurn(in.Messages, prev)
		},
		CountTokens: in.tokenCounter, ReadCommands: in.commandReader}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// stopID names this stop: the session and its last message. Every copy of the plugin
// OpenCode loads sees the same idle; should two run the hook, the stop is judged once and
// both answer alike. "" (every call judged) without either.
func (in idleInput) stopID() string {
	if in.SessionID == "" || len(in.Messages) == 0 || in.Messages[len(in.Messages)-1].ID == "" {
		return ""
	}
	return "opencode:" + in.SessionID + "@" + in.Messages[len(in.Messages)-1].ID
}

var answers = kit.Answers{
	KeepGoing: kit.BlockTellingThePerson,
	LetStop:   kit.LetStopTellingThePerson,
}

// turnStart is the index of the first message after the session's last prompt (0 when the
// payload holds none).
func turnStart(msgs []message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return i + 1
		}
	}
	return 0
}

// turnError is the error the turn's last answer ended with, or "".
func (in idleInput) turnError() string {
	msgs := in.Messages
	for i := len(msgs) - 1; i >= turnStart(msgs); i-- {
		if msgs[i].Role == "assistant" {
			return msgs[i].Error
		}
	}
	return ""
}

// thisTurn is what OpenCode's agent said this turn: the text of its last answer since the
// last prompt that has any (a continuation comes back as a prompt), unless the last judged
// stop read that answer or a later one (the session reverted, say). No text is "no message
// this turn": an earlier, judged answer never counts again.
func thisTurn(msgs []message, prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
	for i := len(msgs) - 1; i >= turnStart(msgs); i-- {
		m := msgs[i]
		if m.Role != "assistant" || m.Text == nil || strings.TrimSpace(*m.Text) == "" {
			continue
		}
		if prev != nil && notAfter(m.ID, prev.ID) {
			return "", true, prev
		}
		return *m.Text, true, &loop.JudgedMessage{ID: m.ID}
	}
	return "", true, prev
}

// notAfter reports whether the message id came no later than mark, a message id read
// before: the same, or both OpenCode's and id earlier (they ascend). mark "" is no mark.
func notAfter(id, mark string) bool {
	if mark == "" {
		return false
	}
	return id == mark || strings.HasPrefix(id, "msg_") && strings.HasPrefix(mark, "msg_") && id < mark
}

// sessionMark names the session in the loop's marks (loop.TranscriptMark.Path): OpenCode
// keeps no log git-loop reads, so a mark is the session and its last message read.
func sessionMark(session string) string { return "opencode session " + session }

// tokenCounter adds the tokens of the answers since the loop's mark (all of the session's
// when the mark is another session's) to the loop's count.
func (in idleInput) tokenCounter(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
	mark := loop.TranscriptMark{Path: sessionMark(in.SessionID)}
	after := ""
	if prev != nil {
		mark.Tokens = prev.Tokens // earlier sessions' tokens still count
		if prev.Path == mark.Path {
			after = prev.LastID
		}
	}
	mark.LastID = after
	for _, m := range in.newMessages(after) {
		if m.Role == "assistant" {
			mark.Tokens += m.Tokens.count()
		}
		mark.LastID = m.ID
	}
	return &mark, nil
}

// commandReader returns the shell commands of the answers since the loop's mark.
func (in idleInput) commandReader(prev *loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	mark := loop.TranscriptMark{Path: sessionMark(in.SessionID)}
	if prev != nil && prev.Path == mark.Path {
		mark.LastID = prev.LastID
	}
	var cmds []string
	for _, m := range in.newMessages(mark.LastID) {
		for _, c := range m.Commands {
			if c != "" {
				cmds = append(cmds, c)
			}
		}
		mark.LastID = m.ID
	}
	return cmds, &mark, nil
}

// newMessages are the payload's messages after the message id mark ("": all), in order.
func (in idleInput) newMessages(mark string) []message {
	var out []message
	for _, m := range in.Messages {
		if m.ID != "" && !notAfter(m.ID, mark) {
			out = append(out, m)
		}
	}
	return out
}
