package copilot

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

// Copilot CLI keeps each session's events in $COPILOT_HOME/session-state/ID/events.jsonl, one
// {"type","data","id","timestamp","parentId"} object per line, appended as the session runs (a
// resumed session appends to the same file); its agentStop payload names the file in
// transcriptPath. What git-loop reads, as Copilot CLI 1.0.102 wrote it (the real logs are kept
// in testdata/realagents/payloads/copilot/*-session-*.jsonl):
//
//	user.message          data.content: a prompt or, after a block, the hook's reason, which
//	                      Copilot sends the model as the next user message. It starts a turn.
//	assistant.message     data.content: the model's text, "" when the answer only requests
//	                      tools; the turn's last one is written before agentStop runs.
//	session.usage_record  data.usage: one model call's inputTokens and outputTokens.
//	                      inputTokens already holds the cached tokens (cacheReadTokens,
//	                      cacheWriteTokens): a model reporting 1000 read from the cache and 100
//	                      written made inputTokens the prompt's tokens plus 1100.
//	tool.execution_start  data.toolName, data.arguments: the shell tool is "bash" (Windows:
//	                      "powershell") with arguments {"command","description"}.
//
// A sub-agent's events carry a top-level "agentId" (copilot-sdk's session-events schema; older
// versions put data.parentToolCallId on its messages). Every other line (hook.start, hook.end,
// assistant.turn_start, session.shutdown, …) is skipped, as are lines that are not JSON or
// not of this shape.

// Copilot writes its events to the file asynchronously: when agentStop runs, the file may not
// exist yet (a new session) or may end before the turn's last events (measured: the first
// stop found no file, a later one 9 KB short of the turn, both there 100 ms on). The stop's
// own hook.start event, whose data.input is the payload (timestamp included), follows every
// event of the turn, so the readers wait, at most logWait, until the file holds it.

// logWait bounds the wait for a stop's hook.start event in the session log.
const logWait = 5 * time.Second

// logPoll is how often the wait looks again.
const logPoll = 25 * time.Millisecond

// awaitStop waits until the session log at path holds the hook.start event of the
// stop at timestamp (the payload's, as written), calling sleep between looks, at most tries
// times. It reports whether the event came; without a timestamp it does not wait.
func awaitStop(path string, timestamp json.RawMessage, tries int, sleep func()) bool {
	ts := bytes.TrimSpace(timestamp)
	if len(ts) == 0 || string(ts) == "null" {
		return false
	}
	return sessionlog.Poll(tries, sleep, func() bool { return hookStarted(path, ts) })
}

// hookStarted reports whether the end of the session log at path holds an agentStop
// hook.start event whose input has timestamp ts. It reads back only over the events that
// follow the turn (hooks' and other bookkeeping): a user or assistant message ends the search.
func hookStarted(path string, ts []byte) bool {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br := sessionlog.NewBackReader(f, size, sessionlog.DefaultLimits)
	for range 64 {
		line, err := br.Prev()
		if err != nil {
			return false
		}
		if bytes.Contains(line, []byte(`"hook.start"`)) {
			var e struct {
				Type string `json:"type"`
				Data struct {
					HookType string `json:"hookType"`
					Input    struct {
						Timestamp json.RawMessage `json:"timestamp"`
					} `json:"input"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &e) == nil && e.Type == "hook.start" && e.Data.HookType == "agentStop" &&
				bytes.Equal(bytes.TrimSpace(e.Data.Input.Timestamp), ts) {
				return true
			}
			continue
		}
		if bytes.Contains(line, []byte(`"user.message"`)) || bytes.Contains(line, []byte(`"assistant.message"`)) {
			return false
		}
	}
	return false
}

// shellTools are the tools whose command runs in a shell.
var shellTools = map[string]bool{"bash": true, "powershell": true}

// thisTurnText returns what Copilot CLI's agent said in its session log's last turn:
// the content of the last assistant.message with text after the last user.message (a prompt,
// or the reason of the block before), and the event's id, so that a later stop can tell the
// same answer from a new one. Read backwards from the end, it costs what the turn holds, not
// what the session does. A sub-agent's messages are not the agent's answer and are passed
// over. No text in the turn is sessionlog.ErrNoText (wrapped, naming the file); errors opening
// or reading the file name it too.
func thisTurnText(path string) (text, id string, err error) {
	return sessionlog.TurnText(path, turnLine)
}

// lastText is thisTurnText over the first size bytes of r.
func lastText(r io.ReaderAt, size int64, lim sessionlog.Limits) (text, id string, err error) {
	return sessionlog.LastTurnText(r, size, lim, turnLine)
}

// turnLine classifies one events.jsonl line for the search of the turn's text.
func turnLine(line []byte) (string, string, sessionlog.Verdict) {
	if !bytes.Contains(line, []byte(`"assistant.message"`)) && !bytes.Contains(line, []byte(`"user.message"`)) {
		return "", "", sessionlog.Skip // most lines, undecoded
	}
	var e struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		AgentID string `json:"agentId"`
		Data    struct {
			Content          json.RawMessage `json:"content"`
			ParentToolCallID string          `json:"parentToolCallId"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil || e.AgentID != "" || e.Data.ParentToolCallID != "" {
		return "", "", sessionlog.Skip
	}
	switch e.Type {
	case "user.message":
		return "", "", sessionlog.EndsTurn
	case "assistant.message":
		var text string
		if json.Unmarshal(e.Data.Content, &text) == nil && strings.TrimSpace(text) != "" {
			return text, e.ID, sessionlog.Text
		}
	}
	return "", "", sessionlog.Skip
}

// usageInFile returns the tokens a session log's usage records hold from byte offset
// from to the end of the file: each model call's inputTokens plus outputTokens, the main
// agent's and its sub-agents' alike (every call the session paid for, each token once: the
// cached ones are inside inputTokens). It also returns the offset after the last complete
// line, where the next call starts: summing the calls gives what one call from 0 gives.
func usageInFile(path string, from int64) (tokens, next int64, err error) {
	return sessionlog.TokensFrom(path, from, "session log", lineUsage)
}

// usageIn is usageInFile over the first size bytes of r.
func usageIn(r io.ReaderAt, size, from int64, lim sessionlog.Limits) (int64, int64, error) {
	return sessionlog.TokensIn(r, size, from, lim, lineUsage)
}

// lineUsage is the tokens of one session.usage_record line, 0 for any other line. A
// negative count (no model reports one) counts as none.
func lineUsage(line []byte) int64 {
	if !bytes.Contains(line, []byte(`"session.usage_record"`)) {
		return 0
	}
	var e struct {
		Type string `json:"type"`
		Data struct {
			Usage *struct {
				Input  int64 `json:"inputTokens"`
				Output int64 `json:"outputTokens"`
			} `json:"usage"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type != "session.usage_record" || e.Data.Usage == nil {
		return 0
	}
	return max(e.Data.Usage.Input, 0) + max(e.Data.Usage.Output, 0)
}

// commandsInFile returns the shell commands a session log records from byte offset from
// to its end (tool.execution_start of the shell tool, a sub-agent's included), and the offset
// after the last complete line.
func commandsInFile(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "session log", func() sessionlog.LineCommands { return lineCommands })
}

// commandsIn is commandsInFile over the first size bytes of r.
func commandsIn(r io.ReaderAt, size, from int64, lim sessionlog.Limits) ([]string, int64, error) {
	return sessionlog.CommandsIn(r, size, from, lim, lineCommands)
}

// lineCommands is the shell command one session log line records, if any.
func lineCommands(line []byte) []string {
	if c := lineCommand(line); c != "" {
		return []string{c}
	}
	return nil
}

// lineCommand is the shell command one tool.execution_start line runs, or "".
func lineCommand(line []byte) string {
	if !bytes.Contains(line, []byte(`"tool.execution_start"`)) {
		return ""
	}
	var e struct {
		Type string `json:"type"`
		Data struct {
			ToolName  string          `json:"toolName"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type != "tool.execution_start" || !shellTools[e.Data.ToolName] {
		return ""
	}
	var args struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(e.Data.Arguments, &args) != nil {
		return ""
	}
	return kit.ShellCommand(args.Command)
}

// thisTurn is what Copilot CLI's agent said this turn, read from its session log: the
// turn's last assistant text, unless the last judged stop read that very event already. No
// text is "no message this turn": an earlier, judged answer never counts again. (A payload
// that names no log, as older versions send, delivers no message: the gates decide.)
func thisTurn(path string, prev *loop.JudgedMessage, stderr io.Writer) (string, bool, *loop.JudgedMessage) {
	text, id, err := thisTurnText(path)
	return kit.TurnFromLog(text, id, err, prev, stderr)
}

// counter advances a loop's token count over a Copilot session log from where the
// previous stop left off (from the start of a log the loop has not read before).
func counter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	return sessionlog.TokenCounter(path, "session log", lineUsage)
}

// commandReader reads the shell commands a session log records since the mark.
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, commandsInFile)
}

// blockCap is Copilot CLI's cap: it honours 8 blocks in a row, tool runs in between or
// not (measured with 1.0.102: a model running a command before each answer was let go at the
// 9th block just as one that never acts), then ends the turn and exits 0, saying so only in
// its own log. stop_hook_active is false on a turn's first stop and true on every stop after
// a block. Nothing is known to change the cap.
func blockCap(stopHookActive bool) loop.BlockCap {
	acted := false
	return loop.BlockCap{Limit: 8, Agent: "Copilot CLI", Continued: stopHookActive, Acted: &acted}
}
