package sessionlog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop"
)

// echoed reads "run X" lines as the command X.
func echoed() LineCommands {
	return func(line []byte) []string {
		if c, ok := strings.CutPrefix(string(line), "run "); ok {
			return []string{c}
		}
		return nil
	}
}

func TestCommandsFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	read := CommandReader(path, func(p string, from int64) ([]string, int64, error) {
		return CommandsFrom(p, from, "log", echoed)
	})
	var mark *loop.TranscriptMark
	for _, tc := range []struct {
		name, appended string
		want           []string
	}{
		{"the first lines", "run a\nnoise\nrun b\n", []string{"a", "b"}},
		{"a line still being written waits", "run c\nrun d", []string{"c"}},
		{"and is read once whole", " e\n", []string{"d e"}},
		{"nothing new", "", nil},
	} {
		write(tc.appended)
		cmds, next, err := read(mark)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(cmds, tc.want) {
			t.Errorf("%s: read %q, want %q", tc.name, cmds, tc.want)
		}
		mark = next
	}
	other := &loop.TranscriptMark{Path: path + ".other", Offset: 3}
	if cmds, _, _ := read(other); len(cmds) != 4 {
		t.Errorf("a mark of another log: read %q, want the whole log", cmds)
	}
	if _, _, err := CommandsFrom(path, 1<<20, "log", echoed); err == nil || !strings.Contains(err.Error(), "outside log") {
		t.Errorf("an offset past the end: %v, want an error naming it", err)
	}
	// A format with state (Gemini's once per call id) gets a fresh LineCommands per read: a
	// command seen at one stop counts again at a later one only if the log records it again.
	calls := 0
	fresh := func() LineCommands { calls++; return echoed() }
	CommandsFrom(path, 0, "log", fresh)
	CommandsFrom(path, 0, "log", fresh)
	if calls != 2 {
		t.Errorf("two reads made %d LineCommands, want one each", calls)
	}
	if CommandReader("", nil) != nil {
		t.Error("a reader without a log is not nil")
	}
}
