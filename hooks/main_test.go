//go:build unix

package hooks

import (
	"os"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
)

// TestMain marks the processes the tests start (hooks, gates) and fails the run if one
// still runs after the last test.
func TestMain(m *testing.M) {
	realagents.MarkSuite()
	os.Exit(realagents.CheckLeftovers(m.Run()))
}
