// Package importer is `git loop import`: it reads the loop files of other tools (the
// official ralph-loop plugin's state file, and the JSON and Markdown formats of its
// cousins), says what carries over and what does not, and starts the same loop in git.
//
// It starts loops through the engine (package loop) like any other command; the engine
// does not import it.
package importer
