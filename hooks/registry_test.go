package hooks

import (
	"slices"
	"testing"
)

// TestRegistryAgreesWithHookFiles: each registry entry's hook file is the agent's own and
// says the same product, every event has a handler, and the hooks install writes are the
// entry's events (so dispatch knows every command install writes).
func TestRegistryAgreesWithHookFiles(t *testing.T) {
	for _, spec := range registry {
		if spec.file.agent != spec.name || spec.file.product != spec.product {
			t.Errorf("%s: its hook file is %s's (%q), want its own (%q)", spec.name, spec.file.agent, spec.file.product, spec.product)
		}
		if spec.command == "" || spec.timeoutKey == "" || spec.timeoutUnit <= 0 {
			t.Errorf("%s: start command %q, timeout key %q, unit %v: want all three", spec.name, spec.command, spec.timeoutKey, spec.timeoutUnit)
		}
		var events []string
		for _, e := range spec.events {
			if e.run == nil {
				t.Errorf("%s %s: no handler", spec.name, e.name)
			}
			events = append(events, e.name)
		}
		for _, h := range spec.file.hooks {
			agent, event, ok := gitLoopHookArgs(h.command)
			if !ok || agent != spec.name || !slices.Contains(events, event) {
				t.Errorf("%s: install writes %q, which is not one of its events %v", spec.name, h.command, events)
			}
		}
	}
	if got := Agents(); got[0] != "claude" || !slices.IsSorted(got[1:]) {
		t.Errorf("Agents() = %v, want claude first, then the others by name", got)
	}
}
