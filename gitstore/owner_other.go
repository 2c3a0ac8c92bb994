//go:build !linux && !darwin

package gitstore

// hostKey is unknown here: git-loop cannot tell whether a pid is still the process that took
// a lock, so it never takes a lock over by its owner (see lockOwner.state).
func hostKey() (string, string) { return "", "" }

// processStart is unknown here.
func processStart(pid int) (uint64, bool) { return 0, false }
