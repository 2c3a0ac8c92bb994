package droid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

// Droid keeps each session's log in ~/.factory/sessions/PROJECT/ID.jsonl, appended as the
// session runs (a resumed session, `droid exec -s ID`, appends to the same file); its Stop
// payload names the file in transcript_path. What git-loop reads, as Droid 0.225 wrote it
// (the real logs are kept in testdata/realagents/payloads/droid/*-session-*.jsonl):
//
//	{"type":"message","id","parentId","timestamp","message":{"role","content":[…],…}}
//
//	role "assistant"  content: "text" blocks (the answer) and "tool_use" blocks; the shell
//	                  tool is "Execute", its input {"command","riskLevel",…}.
//	role "user"       a prompt or, after a block, the hook's reason, which Droid sends the
//	                  model as the next user message: text blocks. It starts a turn. Other
//	                  user messages do not: "tool_result" blocks; Droid's nudges to the model
//	                  ("visibility":"llm_only", "<system-reminder>Continue.</system-reminder>"
//	                  after an empty answer); its notes to the person ("visibility":
//	                  "user_only", as when it gives up on a model that answers nothing); and
//	                  a hook's run ("hookEventName", with "hookResults"), written after it.
//
// Every other line (session_start, agent_turn_outcome, …) is skipped, as are lines that are
// not JSON or not of this shape. The answer's line is written before the Stop hook runs; the
// payload's message_id names it (or Droid's note when the model answered nothing).
//
// The log holds no token counts: Droid keeps the session's running totals in ID.settings.json
// beside it (see usagePath), rewritten after each model call.

// logWait bounds the wait for the stop's last message (message_id) in the session log.
const logWait = 2 * time.Second

// logPoll is how often the wait looks again.
const logPoll = 25 * time.Millisecond

// awaitMessage waits until the session log at path holds the message whose id is id, calling
// sleep between looks, at most tries times. It reports whether the message came; without an
// id it does not wait.
func awaitMessage(path, id string, tries int, sleep func()) bool {
	if id == "" {
		return false
	}
	return sessionlog.Poll(tries, sleep, func() bool { return hasMessage(path, id) })
}

// hasMessage reports whether one of the last lines of the session log at path is the message
// whose id is id. The stop's last message is the log's last line but for the hook runs
// written after it, so the search stops after a few lines.
func hasMessage(path, id string) bool {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br := sessionlog.NewBackReader(f, size, sessionlog.DefaultLimits)
	quoted, _ := json.Marshal(id)
	for range 64 {
		line, err := br.Prev()
		if err != nil {
			return false
		}
		if !bytes.Contains(line, quoted) {
			continue
		}
		var e struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(line, &e) == nil && e.Type == "message" && e.ID == id {
			return true
		}
	}
	return false
}

// logLine is one line of Droid's session log, as far as git-loop reads it.
type logLine struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Message struct {
		Role          string          `json:"role"`
		Content       json.RawMessage `json:"content"`
		Visibility    string          `json:"visibility"`
		HookEventName string          `json:"hookEventName"`
	} `json:"message"`
}

// block is one content block of a message.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// blocks are a message's content blocks; a content that is a string is one text block.
func blocks(content json.RawMessage) []block {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	if json.Unmarshal(content, &bs) != nil {
		return nil
	}
	return bs
}

// text is the message's text: its text blocks that are not blank, one after another.
func text(bs []block) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// turnLine classifies one session log line for the search of the turn's text: an
// assistant message with text is the answer; a user message with text that Droid sent the
// model as the person's (a prompt, a block's reason) ends the turn; everything else is
// passed over.
func turnLine(line []byte) (string, string, sessionlog.Verdict) {
	if !bytes.Contains(line, []byte(`"message"`)) {
		return "", "", sessionlog.Skip
	}
	var e logLine
	if json.Unmarshal(line, &e) != nil || e.Type != "message" {
		return "", "", sessionlog.Skip
	}
	m := e.Message
	switch m.Role {
	case "assistant":
		if t := text(blocks(m.Content)); t != "" {
			return t, e.ID, sessionlog.Text
		}
	case "user":
		if m.HookEventName == "" && m.Visibility != "user_only" && m.Visibility != "llm_only" && text(blocks(m.Content)) != "" {
			return "", "", sessionlog.EndsTurn
		}
	}
	return "", "", sessionlog.Skip
}

// thisTurnText returns what Droid's agent said in its session log's last turn: the text of
// the last assistant message with text after the last prompt (or block reason), and the
// message's id, so that a later stop can tell the same answer from a new one. Read backwards
// from the end, it costs what the turn holds, not what the session does. No text in the turn
// is sessionlog.ErrNoText (wrapped, naming the file); errors opening or reading the file name
// it too.
func thisTurnText(path string) (text, id string, err error) {
	return sessionlog.TurnText(path, turnLine)
}

// thisTurn is what Droid's agent said this turn, read from its session log: the turn's last
// assistant text, unless the last judged stop read that very message already
// (kit.TurnFromLog).
func thisTurn(path string, prev *loop.JudgedMessage, stderr io.Writer) (string, bool, *loop.JudgedMessage) {
	text, id, err := thisTurnText(path)
	return kit.TurnFromLog(text, id, err, prev, stderr)
}

// shellTool is Droid's tool that runs a shell command.
const shellTool = "Execute"

// lineCommands is the shell commands one session log line records: the command of each
// Execute call of an assistant message.
func lineCommands(line []byte) []string {
	if !bytes.Contains(line, []byte(`"tool_use"`)) || !bytes.Contains(line, []byte(`"`+shellTool+`"`)) {
		return nil
	}
	var e logLine
	if json.Unmarshal(line, &e) != nil || e.Type != "message" || e.Message.Role != "assistant" {
		return nil
	}
	var cmds []string
	for _, b := range blocks(e.Message.Content) {
		if b.Type != "tool_use" || b.Name != shellTool {
			continue
		}
		var in struct {
			Command json.RawMessage `json:"command"`
		}
		if json.Unmarshal(b.Input, &in) != nil {
			continue
		}
		if c := kit.ShellCommand(in.Command); c != "" {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// commandsFrom returns the shell commands the session log at path records from byte offset
// from to its end, and the offset after the last complete line.
func commandsFrom(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "session log", func() sessionlog.LineCommands { return lineCommands })
}

// commandReader reads the shell commands a session log records since the mark.
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, commandsFrom)
}

// usagePath is the session settings file beside the session log at path: ID.settings.json
// for ID.jsonl.
func usagePath(log string) string {
	return strings.TrimSuffix(log, ".jsonl") + ".settings.json"
}

// maxSettings bounds the session settings file git-loop reads (Droid's is about 1 KB).
const maxSettings = 4 << 20

// tokenUsage is one of Droid's token counts. For a chat-completions model inputTokens is the
// prompt's tokens less the cached ones, which are cacheReadTokens; thinkingTokens are part
// of outputTokens (a model's reasoning tokens), so they are not added again.
type tokenUsage struct {
	Input         int64 `json:"inputTokens"`
	Output        int64 `json:"outputTokens"`
	CacheCreation int64 `json:"cacheCreationTokens"`
	CacheRead     int64 `json:"cacheReadTokens"`
}

// total is the four counts added up, a negative one counting as none.
func (u tokenUsage) total() int64 {
	return max(u.Input, 0) + max(u.Output, 0) + max(u.CacheCreation, 0) + max(u.CacheRead, 0)
}

// sessionTokens parses a session settings file: the tokens the session has used so far,
// inclusiveTokenUsage (its own model calls and its sub-agents') or, in a file without it,
// tokenUsage (its own).
func sessionTokens(doc []byte) (int64, error) {
	var s struct {
		Own       *tokenUsage `json:"tokenUsage"`
		Inclusive *tokenUsage `json:"inclusiveTokenUsage"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		return 0, fmt.Errorf("not a session settings file: %v", kit.OneLine(err.Error()))
	}
	switch {
	case s.Inclusive != nil:
		return s.Inclusive.total(), nil
	case s.Own != nil:
		return s.Own.total(), nil
	}
	return 0, nil
}

// readTokens reads the tokens a session settings file holds. Droid rewrites the file in
// place: one that does not parse is read again, a few times, before it is an error.
func readTokens(path string) (int64, error) {
	var err error
	for range 4 {
		var doc []byte
		if doc, err = readBounded(path); err != nil {
			return 0, err
		}
		var n int64
		if n, err = sessionTokens(doc); err == nil {
			return n, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, fmt.Errorf("hooks: Droid's session settings %s: %w", path, err)
}

// readBounded reads the file at path (a regular file, opened without blocking), at most
// maxSettings bytes.
func readBounded(path string) ([]byte, error) {
	f, _, err := sessionlog.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	switch {
	case err != nil:
		return nil, sessionlog.ReadError(path, err)
	case len(doc) > maxSettings:
		return nil, fmt.Errorf("hooks: Droid's session settings %s: larger than %d MiB", path, maxSettings>>20)
	}
	return doc, nil
}

// tokenCounter advances a loop's token count over a Droid session from where the previous
// stop left off: the session's running total (the mark's Running) since the last count of the
// same session, added to the tokens earlier sessions of the loop used. A total below the last
// one (a file started over) counts whole.
func tokenCounter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		total, err := readTokens(path)
		if err != nil {
			return nil, err
		}
		mark := loop.TranscriptMark{Path: path, Running: total}
		var before int64
		if prev != nil {
			mark.Tokens = prev.Tokens // tokens of earlier sessions of this loop still count
			if prev.Path == path {
				before = prev.Running
			}
		}
		spent := total - before
		if spent < 0 {
			spent = total
		}
		mark.Tokens += spent
		return &mark, nil
	}
}
