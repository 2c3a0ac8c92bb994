//go:build unix

package realagents

import (
	"os"
	"strings"
	"testing"
	"time"
)

// EnvVar chooses which real agents run:
//
//   - unset or "auto": every agent that can be installed (or is cached); one that cannot
//     (no npm, no registry) is skipped with the reason;
//   - "0" (or off, false, no): none, each test skipped saying so;
//   - "1" (or on, true, all): every agent, and one that cannot be installed fails the test;
//   - a comma-separated list of agents ("claude,codex"): those, as with "1"; the others are
//     skipped.
//
// In `go test -short` they are skipped unless EnvVar asks for them.
const EnvVar = "GITLOOP_REAL_AGENTS"

// Require returns the agent named name, installed, or skips (or fails) t as EnvVar says.
func Require(t testing.TB, name string) Installed {
	t.Helper()
	a, ok := Lookup(name)
	if !ok {
		t.Fatalf("no real agent %q", name)
	}
	v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvVar)))
	forced := false
	switch v {
	case "0", "off", "false", "no":
		t.Skipf("SKIP real agent %s: %s=%s turns the real-agent tests off", name, EnvVar, os.Getenv(EnvVar))
	case "", "auto":
		if testing.Short() {
			t.Skipf("SKIP real agent %s: -short (%s=1 runs the real-agent tests anyway)", name, EnvVar)
		}
	case "1", "on", "true", "all", "yes":
		forced = true
	default:
		selected := false
		for _, n := range strings.Split(v, ",") {
			selected = selected || strings.TrimSpace(n) == name
		}
		if !selected {
			t.Skipf("SKIP real agent %s: not in %s=%s", name, EnvVar, os.Getenv(EnvVar))
		}
		forced = true
	}
	inst, err := Install(a)
	if err != nil {
		if forced {
			t.Fatalf("real agent %s (%s=%s): %v", name, EnvVar, os.Getenv(EnvVar), err)
		}
		t.Skipf("SKIP real agent %s: %v (%s=1 makes this a failure, =0 turns these tests off)", name, err, EnvVar)
	}
	how := "installed from npm"
	if inst.Cached {
		how = "found in the cache"
	}
	t.Logf("%s %s in %v (%s)", inst.Spec(), how, inst.Took.Round(time.Millisecond), inst.Exe)
	return inst
}
