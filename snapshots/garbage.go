package snapshots

import (
	"runtime/debug"
	"runtime/metrics"
)

// git-loop runs with garbage collection off (main.go): a short-lived process whose memory is
// mostly live data. Writing a snapshot's changes is the exception: each changed file is read,
// hashed and compressed, each changed directory's tree encoded, and for thousands of changed
// files that garbage outgrows everything the walk keeps. boundGarbage caps it while those
// objects are written: the runtime's memory limit is set a headroom above what is in use, so
// the collector runs only when the garbage reaches the headroom, and the limit goes back to
// what it was afterwards. The headroom grows with the live data (a quarter of it, at least
// minHeadroom), so a large worktree's many live bytes are not marked over and over.

// minHeadroom is the least garbage allowed to pile up between collections while writing.
const minHeadroom = 4 << 20

// boundGarbage lowers the memory limit to the memory in use plus a headroom, when that is
// lower than the current limit, and returns what restores it.
func boundGarbage() (restore func()) {
	used := memoryInUse()
	limit := used + max(used/8, minHeadroom)
	prev := debug.SetMemoryLimit(-1) // a negative limit only reads it
	if used == 0 || limit >= prev {
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}

// memoryInUse is what the memory limit is compared with: the runtime's mapped memory less
// what it returned to the system.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
