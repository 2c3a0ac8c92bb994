package loop

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/snapshots"
)

// Rebuildable files — the snapshot cache, the hot-state cache, the active-loop pointer
// restored by a reading command — never fail what they speed up: a failure to write one is
// said once on stderr, and the command or iteration goes on without it.

var warnings struct {
	sync.Mutex
	w    io.Writer
	said map[string]bool
}

// SetWarnings sends git-loop's warnings to w (os.Stderr until set): an agent's hook sends
// them to its own stderr.
func SetWarnings(w io.Writer) {
	warnings.Lock()
	defer warnings.Unlock()
	warnings.w = w
}

// warnOnce says that what (a cache) could not be written and why, the first time in this
// process for what.
func warnOnce(what string, err error, consequence string) {
	if err == nil {
		return
	}
	warnings.Lock()
	defer warnings.Unlock()
	if warnings.said[what] {
		return
	}
	if warnings.said == nil {
		warnings.said = map[string]bool{}
	}
	warnings.said[what] = true
	w := warnings.w
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "git-loop: warning: %s could not be written (%v); %s\n", what, err, consequence)
}

// takeSnapshot snapshots r's worktree (see snapshots.Take); a stat cache that could not be
// saved is said, not failed on.
func takeSnapshot(r *gitstore.Repo) (*snapshots.Result, error) {
	res, err := snapshots.Take(r)
	if err == nil {
		warnOnce("the snapshot cache", res.CacheErr, "the snapshot is whole without it, and the next one reads every file again")
	}
	return res, err
}
