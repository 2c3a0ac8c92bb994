package gitstore

import (
	"os"
	"strings"
	"testing"
)

// TestMain stops the race detector's one-second wait at exit in the children the tests start
// from this binary (lock holders, roll-ups, racing writers): built with -race, each would
// otherwise take a second longer, mostly asleep. A GORACE the developer set still wins.
func TestMain(m *testing.M) {
	os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
	os.Exit(m.Run())
}
