package gates

import (
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary act as a gate's guard, for the tests that use one
// (useGuard).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == GuardArg { // the test binary as a gate's guard
		os.Exit(RunGuard(os.Args[2:]))
	}
	// Built with -race, every guard would wait a second at exit for late race reports; a
	// GORACE the developer set still wins.
	os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
	os.Exit(m.Run())
}
