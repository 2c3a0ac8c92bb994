//go:build race

package main

// raceEnabled is set when the tests are built with the race detector.
const raceEnabled = true
