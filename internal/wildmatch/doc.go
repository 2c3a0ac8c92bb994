// Package wildmatch is git's wildmatch (wildmatch.c) in pure Go, with WM_PATHNAME: "*" stops
// at "/", "**" between slashes crosses them, bracket expressions use git's own ctype, and a
// malformed one matches nothing. Whether a "**" crosses slashes depends on the bytes around
// it, exactly as in git, so a pattern must be the whole string git would hand to wildmatch.
//
// The gitignore matcher (snapshots/ignore) compiles its patterns with it, and gitstore
// matches includeIf conditions with it. A plain backtracking search falls back to a memoised
// one past a budget of calls, so no pattern takes exponential time.
//
// It imports only the standard library.
package wildmatch
