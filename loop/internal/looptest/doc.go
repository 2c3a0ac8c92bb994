// Package looptest holds what the tests of several loop packages share: a real git
// repository in a temporary directory with a hermetic HOME and git configuration.
//
// It imports only the standard library, so the engine's own tests may use it too.
package looptest
