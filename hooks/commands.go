package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxCommandLine bounds a transcript line read for commands; longer lines are skipped.
const maxCommandLine = 64 << 20

// CommandsFrom returns the shell commands the agent ran (Bash tool uses in assistant lines)
// from byte offset from to the end of the transcript, and the offset after the last complete
// line, so the next call reads only what was appended.
func CommandsFrom(path string, from int64) ([]string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, from, fmt.Errorf("read commands from transcript %q: %w", path, err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, from, fmt.Errorf("read commands from transcript %q: %w", path, err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var cmds []string
	next := from
	for {
		n, line, err := readLine(r)
		if errors.Is(err, io.EOF) {
			return cmds, next, nil // a torn last line waits for the next call
		}
		if err != nil {
			return cmds, next, fmt.Errorf("read commands from transcript %q: %w", path, err)
		}
		next += int64(n)
		if bytes.Contains(line, []byte(`"tool_use"`)) {
			cmds = append(cmds, bashCommands(line)...)
		}
	}
}

// readLine returns the size of the next complete line and its bytes (nil when it is longer
// than maxCommandLine, which are counted but not kept), or io.EOF when no complete line is
// left.
func readLine(r *bufio.Reader) (int, []byte, error) {
	var line []byte
	n, over := 0, false
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if !over && n <= maxCommandLine {
			line = append(line, chunk...)
		} else {
			over, line = true, nil
		}
		switch {
		case err == nil:
			return n, line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return 0, nil, err
		}
	}
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
