// Package ignore implements git's gitignore semantics exactly, in pure Go.
//
// It reproduces what git 2.39 does when it reads .gitignore files,
// .git/info/exclude and core.excludesFile (dir.c) and when it matches
// paths against them (wildmatch.c in pathname mode), including git's
// quirks:
//
//   - lines are split on "\n"; one "\r" before the "\n" is dropped; a
//     UTF-8 byte-order mark at the start of the content is skipped;
//   - blank lines and lines starting with "#" are ignored; trailing
//     spaces are dropped unless escaped with a backslash (tabs are kept);
//   - "!" negates; a trailing "/" restricts a pattern to directories;
//     a pattern without any other "/" matches the base name at any depth
//     below its file's directory, and one with a "/" is anchored there;
//   - for anchored patterns git compares the literal prefix (up to the
//     first "*", "?", "[" or "\") separately and wildmatches only the rest,
//     so "**" right after that prefix counts as a leading "**": "a/b**"
//     matches "a/bc/d" in git, and so it does here;
//   - character classes use git's own ctype, in which [:space:] is only
//     " \t\n\r"; a malformed bracket expression makes the pattern match
//     nothing.
//
// Matching is case-sensitive (core.ignoreCase is not supported). Patterns
// are compiled once by Parse (their wildcards by internal/wildmatch, git's
// wildmatch); Match does not allocate in the common cases, and no pattern
// can take exponential time.
package ignore
