package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

// Gemini CLI keeps each session's chat in ~/.gemini/tmp/PROJECT/chats/session-TIME-ID.jsonl and
// its AfterAgent payload names the file in transcript_path. As Gemini CLI 0.61.0 writes it
// (the real logs are kept in testdata/realagents/payloads/gemini/*-session-*.jsonl), it is
// JSON lines, appended to as the session runs (a resumed session appends to the same file):
//
//	{"sessionId",…,"kind"}       the session's metadata, on the first line.
//	{"$set":{…}}                 an update of the metadata (lastUpdated, a first "messages"
//	                             holding the session context): no model call of the turn.
//	{"$rewindTo":ID}             the person rewound the conversation: the tokens stay spent.
//	{"id","type":"user",…}       a prompt, a hook's deny reason or a tool's response.
//	{"id","type":"gemini",…}     one model call: "content" (its text), "tokens" ({"input",
//	                             "output","cached","thoughts","tool","total"}: total is the
//	                             call's sum, input holding the cached tokens), and, once its
//	                             tools ran, "toolCalls": [{"id","name","args",…}]; the shell
//	                             tool is run_shell_command with args {"command",…}.
//
// A model call that requests tools is written twice with the same id, with the same tokens:
// when it answers, then with its toolCalls once they ran. The readers count a call's tokens
// once per id and a tool call once per id. When AfterAgent runs, the file already holds the
// turn's last call (measured on six stops: not a byte more two seconds on), so nothing is waited for.

// geminiShellTools are the tools whose command runs in a shell.
var geminiShellTools = map[string]bool{"run_shell_command": true}

// GeminiUsage is where a reading of a Gemini chat log stopped: the offset after the last
// complete line, and the last model call counted (its id and tokens), since a call written
// again after the offset must not count twice.
type GeminiUsage struct {
	Offset int64
	LastID string
	Last   int64
}

// GeminiUsageFrom returns the tokens the model calls of a Gemini chat log hold after the mark
// (each call's tokens.total, or the sum of its parts when it gives no total), and the mark
// where the next call starts: summing the calls gives what one call from the start gives.
func GeminiUsageFrom(path string, from GeminiUsage) (int64, GeminiUsage, error) {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return 0, from, err
	}
	defer f.Close()
	if from.Offset < 0 || from.Offset > size {
		return 0, from, fmt.Errorf("hooks: usage offset %d outside chat log %s (%d bytes)", from.Offset, path, size)
	}
	tokens, next, err := geminiUsageFrom(f, size, from, sessionlog.DefaultLimits)
	if err != nil {
		return 0, from, sessionlog.ReadError(path, err)
	}
	return tokens, next, nil
}

// geminiUsageFrom is GeminiUsageFrom over the first size bytes of r.
func geminiUsageFrom(r io.ReaderAt, size int64, from GeminiUsage, lim sessionlog.Limits) (int64, GeminiUsage, error) {
	var tokens int64
	mark := from
	next, err := sessionlog.Forward(r, size, from.Offset, lim, func(line []byte) error {
		id, n, ok := geminiCallTokens(line)
		if !ok {
			return nil
		}
		if id != "" && id == mark.LastID { // the same call written again: only a rise counts
			tokens += max(n-mark.Last, 0)
			mark.Last = max(n, mark.Last)
			return nil
		}
		tokens += n
		mark.LastID, mark.Last = id, n
		return nil
	})
	if err != nil {
		return 0, from, err
	}
	mark.Offset = next
	return tokens, mark, nil
}

// geminiCallTokens is the id and tokens of one model call's line; ok is false for any other
// line. Negative counts (no model reports one) count as none.
func geminiCallTokens(line []byte) (id string, tokens int64, ok bool) {
	if !bytes.Contains(line, []byte(`"tokens"`)) {
		return "", 0, false
	}
	var m struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Tokens *struct {
			Input    int64 `json:"input"`
			Output   int64 `json:"output"`
			Thoughts int64 `json:"thoughts"`
			Tool     int64 `json:"tool"`
			Total    int64 `json:"total"`
		} `json:"tokens"`
	}
	if json.Unmarshal(line, &m) != nil || m.Type != "gemini" || m.Tokens == nil {
		return "", 0, false
	}
	t := m.Tokens
	if t.Total > 0 {
		return m.ID, t.Total, true
	}
	return m.ID, max(t.Input, 0) + max(t.Output, 0) + max(t.Thoughts, 0) + max(t.Tool, 0), true
}

// GeminiCommandsFrom returns the shell commands a Gemini chat log records from byte offset
// from to its end (run_shell_command calls, each call id once), and the offset after the last
// complete line.
func GeminiCommandsFrom(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "chat log", geminiLineCommands)
}

// geminiCommandsFrom is GeminiCommandsFrom over the first size bytes of r.
func geminiCommandsFrom(r io.ReaderAt, size, from int64, lim sessionlog.Limits) ([]string, int64, error) {
	return sessionlog.CommandsIn(r, size, from, lim, geminiLineCommands())
}

// geminiLineCommands reads the shell commands of a chat log's lines, each call id once: the
// log rewrites a call's line as it runs.
func geminiLineCommands() sessionlog.LineCommands {
	seen := map[string]bool{}
	return func(line []byte) []string {
		var cmds []string
		for _, c := range geminiCommands(line) {
			if c.id != "" && seen[c.id] {
				continue
			}
			seen[c.id] = true
			cmds = append(cmds, c.command)
		}
		return cmds
	}
}

type geminiCommand struct{ id, command string }

// geminiCommands are the shell commands one model call's line runs.
func geminiCommands(line []byte) []geminiCommand {
	if !bytes.Contains(line, []byte(`"toolCalls"`)) {
		return nil
	}
	var m struct {
		Type      string `json:"type"`
		ToolCalls []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			Args struct {
				Command json.RawMessage `json:"command"`
			} `json:"args"`
		} `json:"toolCalls"`
	}
	if json.Unmarshal(line, &m) != nil || m.Type != "gemini" {
		return nil
	}
	var cmds []geminiCommand
	for _, tc := range m.ToolCalls {
		if !geminiShellTools[tc.Name] {
			continue
		}
		if c := shellCommand(tc.Args.Command); c != "" {
			cmds = append(cmds, geminiCommand{tc.ID, c})
		}
	}
	return cmds
}

// geminiCounter advances a loop's token count over a Gemini chat log from where the previous
// stop left off (from the start of a log the loop has not read before).
func geminiCounter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		mark := loop.TranscriptMark{Path: path}
		var from GeminiUsage
		if prev != nil {
			mark.Tokens = prev.Tokens // tokens of earlier logs of this loop still count
			if prev.Path == path {
				from = GeminiUsage{Offset: prev.Offset, LastID: prev.LastID, Last: prev.Running}
			}
		}
		spent, next, err := GeminiUsageFrom(path, from)
		if err != nil {
			return nil, err
		}
		mark.Tokens += spent
		mark.Offset, mark.LastID, mark.Running = next.Offset, next.LastID, next.Last
		return &mark, nil
	}
}

// geminiCommandReader reads the shell commands a chat log records since the mark.
func geminiCommandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, GeminiCommandsFrom)
}
