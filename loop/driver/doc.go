// Package driver is `git loop run` and `git loop demo`: it drives an agent command headless
// through a loop, iteration after iteration, judging each stop with the engine as a hook
// would, and shows a status line while it does.
//
// It owns the run lock, the pacing between runs and the status line. It may import the
// engine (package loop) and its leaves; the engine never imports it.
package driver
