// Package project is `git loop init`: it recognises the project in a worktree (Go, Node,
// Python, Rust, … from the files at its top) and writes the loop configuration that suits
// it: the gates that build, test and lint it, checked against the keys the engine knows.
//
// It writes configuration through the engine (package loop) and git; the engine does not
// import it.
package project
