package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// CommandsFrom returns the shell commands the agent ran (Bash tool uses in assistant lines)
// from byte offset from to the end of the transcript, and the offset after the last complete
// line, so the next call reads only what was appended.
func CommandsFrom(path string, from int64) ([]string, int64, error) {
	f, size, err := openTranscript(path)
	if err != nil {
		return nil, from, err
	}
	defer f.Close()
	if from < 0 || from > size {
		return nil, from, fmt.Errorf("hooks: command offset %d outside transcript %s (%d bytes)", from, path, size)
	}
	var cmds []string
	next, err := forwardLines(f, size, from, defaultLimits, func(line []byte) error {
		if bytes.Contains(line, []byte(`"tool_use"`)) {
			cmds = append(cmds, bashCommands(line)...)
		}
		return nil
	})
	if err != nil {
		return nil, from, readError(path, err)
	}
	return cmds, next, nil
}

// bashCommands extracts the commands of Bash tool uses in one transcript line.
func bashCommands(line []byte) []string {
	var rec struct {
		Type    string `json:"type"`
		Message struct {
			Content []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Input struct {
					Command string `json:"command"`
				} `json:"input"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "assistant" {
		return nil
	}
	var cmds []string
	for _, c := range rec.Message.Content {
		if c.Type == "tool_use" && c.Name == "Bash" && c.Input.Command != "" {
			cmds = append(cmds, c.Input.Command)
		}
	}
	return cmds
}
