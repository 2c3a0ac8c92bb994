// Package logtest holds what the tests of the agents' session-log readers share: logs
// written as JSON lines into a test's temporary directory, and small reading limits that
// make the readers cross chunk boundaries.
package logtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/sessionlog"
)

// JSONLines is lines joined as a JSONL file: each ends with a newline.
func JSONLines(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// Write writes data as a log file in a temporary directory of t and returns its path.
func Write(t testing.TB, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Limits reads in chunks of chunk bytes (at most 16 of them for one line) and skips lines
// longer than maxLine.
func Limits(chunk, maxLine int) sessionlog.Limits {
	return sessionlog.Limits{Chunk: chunk, MaxChunk: 16 * chunk, MaxLine: maxLine}
}

// TurnCase is one log and the turn's text a reader of it must find: want "" for none
// (sessionlog.ErrNoText), else the text and the id of the line it came from.
type TurnCase struct {
	Name     string
	Lines    []string
	Want, ID string
}

// CheckTurnText runs read, an agent's reader of its log's last turn, over each case's lines
// written as a log, and over a log that does not exist, which must be an error naming it
// (never sessionlog.ErrNoText).
func CheckTurnText(t *testing.T, read func(path string) (text, id string, err error), cases []TurnCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var data []byte
			if tc.Lines != nil {
				data = JSONLines(tc.Lines...)
			}
			text, id, err := read(Write(t, data))
			switch {
			case tc.Want == "" && !errors.Is(err, sessionlog.ErrNoText):
				t.Errorf("got %q, %v; want sessionlog.ErrNoText", text, err)
			case tc.Want != "" && (err != nil || text != tc.Want || id != tc.ID):
				t.Errorf("got %q (id %q), %v; want %q (id %q)", text, id, err, tc.Want, tc.ID)
			}
		})
	}
	if _, _, err := read(filepath.Join(t.TempDir(), "none.jsonl")); err == nil || errors.Is(err, sessionlog.ErrNoText) {
		t.Errorf("a missing log: %v, want an error naming it", err)
	}
}
