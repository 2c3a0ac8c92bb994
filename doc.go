// Command git-loop keeps an AI coding agent working until the work is verifiably done, and
// stores everything about the loop in git, on refs/loop/<name>. Installed on PATH it is the
// git subcommand `git loop`.
package main
