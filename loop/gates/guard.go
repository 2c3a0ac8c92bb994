package gates

import "sync"

// GuardArg is the hidden first argument that makes git-loop run as a gate's guard (see
// RunGuard). It is no command a person types.
const GuardArg = "__gate-guard"

var guard struct {
	sync.Mutex
	exe  func() (string, error)
	once *sync.Once
	path string
	// owner names this process in the marks of its gates, once (see gateOwner).
	owner func() string
}

// UseGuard makes Run run each gate under a guard where the platform has one (Linux):
// exe names the executable that runs RunGuard when its first argument is GuardArg — git-loop
// itself (os.Executable). Without it, or when exe fails, gates run without a guard. owner
// names this process in the marks of its guarded gates' processes and in the record Watch
// keeps (gitstore's OwnerName); nil leaves them unmarked.
func UseGuard(exe func() (string, error), owner func() string) {
	guard.Lock()
	defer guard.Unlock()
	guard.exe, guard.once, guard.path = exe, new(sync.Once), ""
	guard.owner = nil
	if owner != nil {
		guard.owner = sync.OnceValue(owner)
	}
}

// guardPath is the guard's executable, or "" when gates run unguarded.
func guardPath() string {
	guard.Lock()
	exe, once := guard.exe, guard.once
	guard.Unlock()
	if exe == nil {
		return ""
	}
	once.Do(func() {
		if p, err := exe(); err == nil {
			guard.Lock()
			guard.path = p
			guard.Unlock()
		}
	})
	guard.Lock()
	defer guard.Unlock()
	return guard.path
}

// gateOwner names this process in the marks of its gates (see guard_orphans.go), "" when
// nothing names it.
func gateOwner() string {
	guard.Lock()
	owner := guard.owner
	guard.Unlock()
	if owner == nil {
		return ""
	}
	return owner()
}
