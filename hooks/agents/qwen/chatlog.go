package qwen

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

// Qwen Code keeps each session's chat in ~/.qwen/projects/PROJECT/chats/ID.jsonl, and its
// Stop payload names the file in transcript_path. As Qwen Code 0.24.4 writes it (the real
// logs are kept in testdata/realagents/payloads/qwen/*-session-*.jsonl) it is JSON lines,
// appended to as the session runs (a resumed session appends to the same file), each with
// "uuid", "parentUuid", "sessionId", "timestamp" and "type":
//
//	"user"         a prompt: "message" {"role":"user","parts":[{"text"}]}. A Stop hook's
//	               block reason is sent to the model but never written here.
//	"assistant"    one model message: "message" {"role":"model","parts":[…]}, parts of
//	               {"text"} (and "thought": true for reasoning) or {"functionCall":{"id",
//	               "name","args"}}; the shell tool is run_shell_command with args
//	               {"command",…}. "usageMetadata" holds the tokens of the call that gave it.
//	"tool_result"  a tool's response ("functionResponse" parts).
//	"system"       bookkeeping, by "subtype": "ui_telemetry" holds one telemetry event in
//	               "systemPayload"."uiEvent"; "qwen-code.api_response" events are every model
//	               call of the session, with "total_token_count" ("input_token_count" holding
//	               the cached tokens, "output_token_count", "thoughts_token_count"): the
//	               empty answers Qwen Code retried, which leave no assistant line, and its
//	               memory extraction after a turn (with "subagent_id") included.
//
// Each line is written once. The api_response event of a call comes before its assistant
// line; when the Stop hook starts, the last answer's line may still be on its way (it was
// in one stop of three measured), so the readers first wait for it, a moment at most.

// shellTools are the tools whose command runs in a shell.
var shellTools = map[string]bool{"run_shell_command": true}

// apiResponse is the telemetry event of one model call.
const apiResponse = "qwen-code.api_response"

// callTokens is the tokens of one model call's telemetry line; ok is false for any other
// line. Negative counts (no model reports one) count as none.
func callTokens(line []byte) (tokens int64, ok bool) {
	if !bytes.Contains(line, []byte(apiResponse)) {
		return 0, false
	}
	var m struct {
		Type          string `json:"type"`
		Subtype       string `json:"subtype"`
		SystemPayload struct {
			UIEvent struct {
				Name     string `json:"event.name"`
				Input    int64  `json:"input_token_count"`
				Output   int64  `json:"output_token_count"`
				Thoughts int64  `json:"thoughts_token_count"`
				Total    int64  `json:"total_token_count"`
			} `json:"uiEvent"`
		} `json:"systemPayload"`
	}
	if json.Unmarshal(line, &m) != nil || m.Type != "system" || m.Subtype != "ui_telemetry" || m.SystemPayload.UIEvent.Name != apiResponse {
		return 0, false
	}
	e := m.SystemPayload.UIEvent
	if e.Total > 0 {
		return e.Total, true
	}
	return max(e.Input, 0) + max(e.Output, 0) + max(e.Thoughts, 0), true
}

// usageIn returns the tokens of the model calls the first size bytes of r record from
// offset from, and the offset after the last complete line.
func usageIn(r io.ReaderAt, size, from int64, lim sessionlog.Limits) (int64, int64, error) {
	return sessionlog.TokensIn(r, size, from, lim, lineTokens)
}

// usageInFile is usageIn over the chat log at path.
func usageInFile(path string, from int64) (int64, int64, error) {
	return sessionlog.TokensFrom(path, from, "chat log", lineTokens)
}

// counter advances a loop's token count over a chat log from where the previous stop left
// off (from the start of a log the loop has not read before).
func counter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	return sessionlog.TokenCounter(path, "chat log", lineTokens)
}

// lineTokens is callTokens' count, 0 for a line that records no model call.
func lineTokens(line []byte) int64 {
	n, _ := callTokens(line)
	return n
}

// message is the part of a chat log line the readers of messages need.
type message struct {
	Type    string `json:"type"`
	Message struct {
		Parts []struct {
			Text         string `json:"text"`
			Thought      bool   `json:"thought"`
			FunctionCall *struct {
				ID   string `json:"id"`
				Name string `json:"name"`
				Args struct {
					Command json.RawMessage `json:"command"`
				} `json:"args"`
			} `json:"functionCall"`
		} `json:"parts"`
	} `json:"message"`
}

// lineCommands reads the shell commands of a chat log's assistant lines, each call id once.
func lineCommands() sessionlog.LineCommands {
	seen := map[string]bool{}
	return func(line []byte) []string {
		if !bytes.Contains(line, []byte(`"functionCall"`)) {
			return nil
		}
		var m message
		if json.Unmarshal(line, &m) != nil || m.Type != "assistant" {
			return nil
		}
		var cmds []string
		for _, p := range m.Message.Parts {
			c := p.FunctionCall
			if c == nil || !shellTools[c.Name] || c.ID != "" && seen[c.ID] {
				continue
			}
			if cmd := kit.ShellCommand(c.Args.Command); cmd != "" {
				seen[c.ID] = true
				cmds = append(cmds, cmd)
			}
		}
		return cmds
	}
}

// commandsInFile returns the shell commands the chat log at path records from byte offset
// from to its end, and the offset after the last complete line.
func commandsInFile(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "chat log", lineCommands)
}

// commandReader reads the shell commands a chat log records since the mark.
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, commandsInFile)
}

// lastAnswer classifies a chat log's lines for the search of the last model message: an
// assistant line is one (its visible text, maybe none), a prompt ends the search.
func lastAnswer(line []byte) (string, string, sessionlog.Verdict) {
	if !bytes.Contains(line, []byte(`"assistant"`)) && !bytes.Contains(line, []byte(`"user"`)) {
		return "", "", sessionlog.Skip
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return "", "", sessionlog.Skip
	}
	switch m.Type {
	case "assistant":
		var b strings.Builder
		for _, p := range m.Message.Parts {
			if !p.Thought {
				b.WriteString(p.Text)
			}
		}
		return b.String(), "", sessionlog.Text
	case "user":
		return "", "", sessionlog.EndsTurn
	}
	return "", "", sessionlog.Skip
}

// answerWait bounds how long the readers wait for the chat log to hold the answer that ended
// the turn. A variable only so that tests set the wait they need instead of racing a clock.
var answerWait = 2 * time.Second

// awaitAnswer waits, at most answerWait, until the chat log at path ends with the model
// message whose text is answer (the payload's last_assistant_message), so that the readers
// count the turn's last call. Nothing is waited for without an answer to recognise.
func awaitAnswer(path string, answer *string) {
	if path == "" || answer == nil || *answer == noResponseText {
		return
	}
	sessionlog.AwaitText(path, *answer, lastAnswer, answerWait)
}
