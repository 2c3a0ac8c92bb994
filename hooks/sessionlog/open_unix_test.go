//go:build unix

package sessionlog

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A path naming a FIFO is refused at once: opening it must not wait for a writer, which
// would trap the agent in its stop hook.
func TestOpenRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, _, err := Open(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open(FIFO): %v, want a refusal", err)
	}
}
