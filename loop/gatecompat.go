package loop

import "github.com/git-loop/git-loop/loop/gates"

// The gate runner's names as the packages above the engine knew them, until they name
// package gates themselves.
const (
	GatePass             = gates.StatusPass
	GateFail             = gates.StatusFail
	GateBlocked          = gates.StatusBlocked
	GateSkip             = gates.StatusSkip
	GateTimeout          = gates.StatusTimeout
	GateError            = gates.StatusError
	DefaultGateTimeout   = gates.DefaultTimeout
	DefaultGateTailBytes = gates.DefaultTailBytes
	ExitCodesLayered     = gates.ExitCodesLayered
	GuardArg             = gates.GuardArg
)

// RunGuard is gates.RunGuard.
func RunGuard(args []string) int { return gates.RunGuard(args) }

// NewTailBuffer is gates.NewTailBuffer.
var NewTailBuffer = gates.NewTailBuffer

// RunInGroup is gates.RunInGroup.
var RunInGroup = gates.RunInGroup

// ExitStatus is gates.ExitStatus.
var ExitStatus = gates.ExitStatus
