// Package textutil holds the small text helpers the packages share: patterns compiled
// on first use (start-up cost matters to the hook), the last lines of an output, and
// rendering stored text safely on a terminal.
//
// Beside the standard library it imports only go-diff (github.com/sergi/go-diff), for the
// line diffs of linediff.go.
package textutil
