// Package snapshots turns a working tree into a git tree object identical to the one
// `cp .git/index tmp; GIT_INDEX_FILE=tmp git add -A; git write-tree` would produce, without
// touching the index, HEAD, the worktree or any ref. A stat cache under the worktree's git dir
// makes an unchanged tree cost one directory walk.
package snapshots
