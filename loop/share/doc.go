// Package share is `git loop push` and `git loop fetch`: it sends a loop's refs to a
// remote and brings others' loops back under refs/loop/fetched/, scanning what leaves for
// secrets first and printing where each loop came from.
//
// It moves refs through the engine (package loop), whose store also writes the provenance
// notes; the engine does not import it.
package share
