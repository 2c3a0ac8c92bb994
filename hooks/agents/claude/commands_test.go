package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsFrom: Bash commands of assistant lines, read incrementally; a torn last line
// waits; other tools and user lines are ignored. Checked on a real transcript too.
func TestCommandsFrom(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"run it"}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","name":"Read","input":{"file_path":"x"}}]}}`,
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o666)
	cmds, next, err := CommandsFrom(path, 0)
	if err != nil || len(cmds) != 1 || cmds[0] != "go test ./..." {
		t.Fatalf("first read: %q, %v", cmds, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","name":"Bash","input":{"command":"git push --force"}}]}}` + "\n" + `{"type":"assistant","message":{"id":"m4","con`)
	f.Close()
	cmds, next2, err := CommandsFrom(path, next)
	if err != nil || len(cmds) != 1 || cmds[0] != "git push --force" {
		t.Fatalf("incremental read: %q, %v", cmds, err)
	}
	fi, _ := os.Stat(path)
	if next2 >= fi.Size() {
		t.Errorf("offset %d passed the torn last line (file %d bytes)", next2, fi.Size())
	}
	real, _, err := CommandsFrom(filepath.Join("..", "..", "..", "testdata", "transcripts", "tool_heavy.jsonl"), 0)
	if err != nil || len(real) == 0 {
		t.Errorf("real transcript: %d commands, %v", len(real), err)
	}
}
