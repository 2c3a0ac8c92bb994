// Package diag reads what a gate printed: test runners (go test, pytest, cargo, jest, …),
// compilers and linters, coverage reports, and the `require` conditions a gate's figures are
// checked against ("coverage >= 85"). It turns text into [Diagnostics] and nothing else.
//
// It owns the parsers and their fixtures (testdata/diag). It may not import the loop engine
// or anything above it: the engine runs gates and hands their output here, so this package
// knows neither gates, nor loops, nor git.
package diag
