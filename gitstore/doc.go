// Package gitstore is git-loop's only door to a git repository: it finds and opens repositories
// (linked worktrees, worktreeConfig, partial clones), reads and writes objects, updates refs with
// git's own lock protocol, and reads the index. It is the only package that imports go-git.
package gitstore
