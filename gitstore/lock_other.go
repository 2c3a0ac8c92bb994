//go:build !unix

package gitstore

import "os"

// withBreakMutex does nothing where git-loop has no OS lock to serialise breaking with:
// stale locks are reported, never taken over.
func withBreakMutex(dir string, fn func()) {}

// linkCount is unknown here: every lock is inspected for an owner record.
func linkCount(fi os.FileInfo) uint64 { return 0 }
