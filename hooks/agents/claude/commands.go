package claude

import (
	"bytes"
	"encoding/json"

	"github.com/git-loop/git-loop/hooks/sessionlog"
)

// CommandsFrom returns the shell commands the agent ran (Bash tool uses in assistant lines)
// from byte offset from to the end of the transcript, and the offset after the last complete
// line, so the next call reads only what was appended.
func CommandsFrom(path string, from int64) ([]string, int64, error) {
	return sessionlog.CommandsFrom(path, from, "transcript", func() sessionlog.LineCommands { return claudeCommands })
}

// claudeCommands are the commands of the Bash tool uses in one transcript line.
func claudeCommands(line []byte) []string {
	if !bytes.Contains(line, []byte(`"tool_use"`)) {
		return nil
	}
	return bashCommands(line)
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
