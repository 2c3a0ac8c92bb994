package gitstore

import (
	"fmt"
	"os"
	"time"
)

// StallEnv names the point of a write at which StallAt stops the process.
const StallEnv = "GIT_LOOP_STALL"

// StallAt stops this process for good at a named point of a write when $GIT_LOOP_STALL
// names that point, after saying so on stderr: the fault suite (fault_test.go) kills it
// there with SIGKILL, to show that a process killed at that very point leaves the repository
// sound and its loop enforced. Unset, it costs one environment lookup.
func StallAt(point string) {
	if os.Getenv(StallEnv) != point {
		return
	}
	fmt.Fprintf(os.Stderr, "git-loop: stalled at %s\n", point)
	for {
		time.Sleep(time.Hour)
	}
}
