package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/git-loop/git-loop/hooks/kit"
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

// shellTools are the tools whose command runs in a shell.
var shellTools = map[string]bool{"run_shell_command": true}

// usageMark is where a reading of a Gemini chat log stopped: the offset after the last
// complete line, and the last model call counted (its id and tokens), since a call written
// again after the offset must not count twice.
type usageMark struct {
	Offset int64
	LastID string
	Last   int64
}

// usageInFile returns the tokens the model calls of a Gemini chat log hold after the mark
// (each call's tokens.total, or the sum of its parts when it gives no total), and the mark
// where the next call starts: summing the calls gives what one call from the start gives.
func usageInFile(path string, from usageMark) (int64, usageMark, error) {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return 0, from, err
	}
	defer f.Close()
	if from.Offset < 0 || from.Offset > size {
		return 0, from, fmt.Errorf("hooks: usage offset %d outside chat log %s (%d bytes)", from.Offset, path, size)
	}
	tokens, next, err := usageIn(f, size, from, sessionlog.DefaultLimits)
	if err != nil {
		return 0, from, sessionlog.ReadError(path, err)
	}
	return tokens, next, nil
}

// usageIn is usageInFile over the first size bytes of r.
func usageIn(r io.ReaderAt, size int64, from usageMark, lim sessionlog.Limits) (int64, usageMark, error) {
	var tokens int64
	mark := from
	next, err := sessionlog.Forward(r, size, from.Offset, lim, func(line []byte) error {
		id, n, ok := callTokens(line)
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

// callTokens is the id and tokens of one model call's line; ok is false for any other
// line. Negative counts (no model reports one) count as none.
func callTokens(line []byte) (id string, tokens int64, ok bool) {
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

// commandsInFile returns the shell commands a Gemini chat log records from byte offset
// from to its end (run_shell_command calls, each call id once), and the offset after the last
// complete line.
func commandsInFile(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "chat log", lineCommands)
}

// commandsIn is commandsInFile over the first size bytes of r.
func commandsIn(r io.ReaderAt, size, from int64, lim sessionlog.Limits) ([]string, int64, error) {
	return sessionlog.CommandsIn(r, size, from, lim, lineCommands())
}

// lineCommands reads the shell commands of a chat log's lines, each call id once: the
// log rewrites a call's line as it runs.
func lineCommands() sessionlog.LineCommands {
	seen := map[string]bool{}
	return func(line []byte) []string {
		var cmds []string
		for _, c := range shellCalls(line) {
			if c.id != "" && seen[c.id] {
				continue
			}
			seen[c.id] = true
			cmds = append(cmds, c.command)
		}
		return cmds
	}
}

type shellCall struct{ id, command string }

// shellCalls are the shell commands one model call's line runs.
func shellCalls(line []byte) []shellCall {
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
	var cmds []shellCall
	for _, tc := range m.ToolCalls {
		if !shellTools[tc.Name] {
			continue
		}
		if c := kit.ShellCommand(tc.Args.Command); c != "" {
			cmds = append(cmds, shellCall{tc.ID, c})
		}
	}
	return cmds
}

// counter advances a loop's token count over a Gemini chat log from where the previous
// stop left off (from the start of a log the loop has not read before).
func counter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		mark := loop.TranscriptMark{Path: path}
		var from usageMark
		if prev != nil {
			mark.Tokens = prev.Tokens // tokens of earlier logs of this loop still count
			if prev.Path == path {
				from = usageMark{Offset: prev.Offset, LastID: prev.LastID, Last: prev.Running}
			}
		}
		spent, next, err := usageInFile(path, from)
		if err != nil {
			return nil, err
		}
		mark.Tokens += spent
		mark.Offset, mark.LastID, mark.Running = next.Offset, next.LastID, next.Last
		return &mark, nil
	}
}

// commandReader reads the shell commands a chat log records since the mark.
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, commandsInFile)
}
