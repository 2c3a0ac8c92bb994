package snapshots

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// git-loop runs with garbage collection off (main.go): a short-lived process whose memory is
// mostly live data. Writing a snapshot's changes is the exception: each changed file is read,
// hashed and compressed, each changed directory's tree encoded, and for thousands of changed
// files that garbage outgrows everything the walk keeps. boundGarbage caps it while those
// objects are written: the runtime's memory limit is set a headroom above what is in use, so
// the collector runs only when the garbage reaches the headroom, and the limit goes back to
// what it was afterwards. The headroom grows with the live data (an eighth of it, at least
// minHeadroom), so a large worktree's many live bytes are not marked over and over.

// minHeadroom is the least garbage allowed to pile up between collections while writing.
const minHeadroom = 4 << 20

// boundGarbage lowers the memory limit to the memory in use plus a headroom, when that is
// lower than the current limit, and returns what restores it. Bounds taken at once (Take is
// exported: snapshots of several worktrees in one process) share the first one's, and the
// last to finish restores the limit they found: restoring each its own "previous" limit
// could leave a lowered one in place for good, a collection whenever the heap reaches it.
func boundGarbage() (restore func()) {
	garbageMu.Lock()
	defer garbageMu.Unlock()
	if garbageBounds == 0 {
		garbageRestore = -1
		used := memoryInUse()
		limit := used + max(used/8, minHeadroom)
		if prev := debug.SetMemoryLimit(-1); used != 0 && limit < prev { // a negative limit only reads it
			debug.SetMemoryLimit(limit)
			garbageRestore = prev
		}
	}
	garbageBounds++
	var once sync.Once
	return func() {
		once.Do(func() {
			garbageMu.Lock()
			defer garbageMu.Unlock()
			if garbageBounds--; garbageBounds == 0 && garbageRestore >= 0 {
				debug.SetMemoryLimit(garbageRestore)
			}
		})
	}
}

var (
	garbageMu      sync.Mutex
	garbageBounds  int   // bounds not yet restored
	garbageRestore int64 // the limit they found, or -1 when they left it alone
)

// memoryInUse is what the memory limit is compared with: the runtime's mapped memory less
// what it returned to the system. (runtime/metrics reads it without stopping the world, but
// its package initialisation costs every git-loop process, the idle hook's included, a
// tenth of a millisecond; this is read once per snapshot.)
func memoryInUse() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys - m.HeapReleased)
}
