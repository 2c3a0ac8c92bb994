//go:build !unix

package gates

import "os/exec"

// shellSignal is "": exit statuses above 128 mean nothing special here.
func shellSignal(code int) string { return "" }

// waitSignal is "": a process ends by its exit status here.
func waitSignal(ee *exec.ExitError) string { return "" }
