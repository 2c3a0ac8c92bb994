package codex

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

// Codex CLI keeps each session as a JSONL "rollout" (~/.codex/sessions/…/rollout-*.jsonl),
// one {"timestamp","type","payload"} object per line; its Stop payload names it in
// transcript_path. Two kinds of line matter to a loop:
//   - event_msg lines whose payload is a token_count event: payload.info.total_token_usage
//     is the session's running total (info is null before the first answer);
//   - response_item lines whose payload is a function call running a shell command:
//     "shell" with arguments {"command": ["bash", "-lc", "…"]}, "exec_command" with
//     {"cmd": "…"}, or a local_shell_call with action.command.
// The format is documented by the tools that read it, not by Codex; no real rollout was at
// hand, so the parsers below are lenient: what they do not recognise they skip.

// usageFrom returns the tokens a rollout's token_count events record from byte offset
// from on, given last, the running total at from: what each event's running total grew by,
// or the whole total after one that went back (a total that restarts). It also returns the
// running total at the end and the offset after the last complete line, so the next call
// reads only what was appended.
func usageFrom(path string, from, last int64) (spent, running, next int64, err error) {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return 0, last, from, err
	}
	defer f.Close()
	if from < 0 || from > size {
		return 0, last, from, fmt.Errorf("hooks: usage offset %d outside rollout %s (%d bytes)", from, path, size)
	}
	running = last
	next, err = sessionlog.Forward(f, size, from, sessionlog.DefaultLimits, func(line []byte) error {
		if t, ok := tokenTotal(line); ok {
			if t >= running {
				spent += t - running
			} else {
				spent += t // the total started again
			}
			running = t
		}
		return nil
	})
	if err != nil {
		return 0, last, from, sessionlog.ReadError(path, err)
	}
	return spent, running, next, nil
}

// tokenTotal reads the running total of one rollout line holding a token_count event.
func tokenTotal(line []byte) (int64, bool) {
	if !bytes.Contains(line, []byte(`"token_count"`)) {
		return 0, false
	}
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type string `json:"type"`
			Info *struct {
				Total struct {
					Input  int64 `json:"input_tokens"`
					Output int64 `json:"output_tokens"` // reasoning tokens included
					Total  int64 `json:"total_tokens"`
				} `json:"total_token_usage"`
			} `json:"info"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "event_msg" || rec.Payload.Type != "token_count" || rec.Payload.Info == nil {
		return 0, false
	}
	t := rec.Payload.Info.Total
	if t.Total > 0 {
		return t.Total, true
	}
	if sum := t.Input + t.Output; sum > 0 {
		return sum, true
	}
	return 0, false
}

// commandsFrom returns the shell commands a rollout records from byte offset from to
// its end, and the offset after the last complete line.
func commandsFrom(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "rollout", func() sessionlog.LineCommands { return lineCommands })
}

// lineCommands are the shell commands one rollout line records.
func lineCommands(line []byte) []string {
	if !bytes.Contains(line, []byte(`"response_item"`)) {
		return nil
	}
	return commandsOf(line)
}

// commandsOf extracts the shell command of one rollout line, if it records one.
func commandsOf(line []byte) []string {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"` // a JSON document, as a string
			Action    struct {
				Command json.RawMessage `json:"command"`
			} `json:"action"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" {
		return nil
	}
	p := rec.Payload
	var raw json.RawMessage
	switch {
	case p.Type == "local_shell_call":
		raw = p.Action.Command
	case p.Type == "function_call" && (p.Name == "shell" || p.Name == "exec_command" || p.Name == "shell_command" || p.Name == "container.exec"):
		var args struct {
			Command json.RawMessage `json:"command"`
			Cmd     json.RawMessage `json:"cmd"`
		}
		if json.Unmarshal([]byte(p.Arguments), &args) != nil {
			return nil
		}
		raw = args.Command
		if len(raw) == 0 {
			raw = args.Cmd
		}
	default:
		return nil
	}
	if c := kit.ShellCommand(raw); c != "" {
		return []string{c}
	}
	return nil
}

// counter advances a loop's token count over a Codex rollout: what its running total
// grew by since the mark (the whole total for a rollout the loop has not read before).
func counter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		mark := loop.TranscriptMark{Path: path}
		var from, before int64
		if prev != nil {
			mark.Tokens = prev.Tokens // tokens of earlier transcripts of this loop still count
			if prev.Path == path {
				from, before = prev.Offset, prev.Running
			}
		}
		spent, running, next, err := usageFrom(path, from, before)
		if err != nil {
			return nil, err
		}
		mark.Tokens += spent
		mark.Offset, mark.Running = next, running
		return &mark, nil
	}
}

// commandReader reads the shell commands a rollout records since the mark.
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, commandsFrom)
}
