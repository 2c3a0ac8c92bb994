// Package manpage is git-loop's manual page: the roff writer that makes it from the command
// definitions (at development time, see main_man.go), the page itself, embedded, and its
// installation into the user's man path for `man git-loop` and `git loop --help`.
package manpage
