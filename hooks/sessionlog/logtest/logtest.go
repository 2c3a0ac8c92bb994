// Package logtest holds what the tests of the agents' session-log readers share: logs
// written as JSON lines into a test's temporary directory, and small reading limits that
// make the readers cross chunk boundaries.
package logtest

import (
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
