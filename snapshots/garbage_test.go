package snapshots

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestBoundGarbageOverlapping: snapshots taken at once in one process (Take is exported)
// bound the garbage over each other; whatever order they finish in, the memory limit must
// end as it was, not stay at one of their lowered limits for the rest of the process, whose
// garbage collection is off.
func TestBoundGarbageOverlapping(t *testing.T) {
	orig := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(orig)
	sink := make([]byte, 64<<20)
	for i := range sink {
		sink[i] = byte(i)
	}
	restoreA := boundGarbage()
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		t.Skip("boundGarbage did not lower the limit")
	}
	sink = nil
	debug.FreeOSMemory() // less in use: the second bound is lower than the first
	restoreB := boundGarbage()
	restoreA()
	restoreB()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("memory limit left at %d, want it restored", got)
	}
}
