package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/git-loop/git-loop/loop"
)

// A stop hook's timeout, as install writes it and as the hook reads it back. install writes
// loop.HookTimeout of the gates the worktree's .gitloop and git config define (660 s with
// none, or default ones), each agent in its own unit: seconds, but milliseconds for Gemini
// CLI. A stop reads what the agent's files actually give it (the shortest, when several do)
// and cuts its gates to finish the engine's hook record margin before that, so that a hung gate is
// recorded as a timeout rather than the agent killing the hook with nothing recorded.

// installTimeout is the stop hook timeout install writes for the worktree at dir.
func installTimeout(dir string) time.Duration {
	return loop.ConfiguredHookTimeout(dir)
}

// withStopTimeout returns hf with every judging hook's timeout set to d, in the agent's unit.
func withStopTimeout(hf hookFile, d time.Duration) hookFile {
	u, ok := specOf(hf.agent)
	if !ok {
		return hf
	}
	n := int(d / u.timeoutUnit)
	out := hf
	out.hooks = make([]fileHook, len(hf.hooks))
	for i, h := range hf.hooks {
		out.hooks[i] = h
		if agent, event, ok := gitLoopHookArgs(h.command); !ok || !judges(agent, event) {
			continue
		}
		out.hooks[i].entry = entryWithTimeout(h.entry, u.timeoutKey, n)
	}
	return out
}

// entryWithTimeout returns a copy of a hook entry with its timeout (key) set to n.
func entryWithTimeout(entry any, key string, n int) any {
	switch e := entry.(type) {
	case hookGroup:
		hs := append([]hookCommand(nil), e.Hooks...)
		for i := range hs {
			hs[i].Timeout = n
		}
		return hookGroup{Hooks: hs}
	case orderedObject:
		o := append(orderedObject(nil), e...)
		for i, kv := range o {
			switch v := kv.val.(type) {
			case []any: // a group's hooks (Gemini CLI)
				hs := make([]any, len(v))
				for j, h := range v {
					hs[j] = entryWithTimeout(h, key, n)
				}
				o[i].val = hs
			default:
				if kv.key == key {
					o[i].val = n
				}
			}
		}
		return o
	case geminiHook:
		e.Timeout = n
		return e
	}
	return entry
}

// hookFileOf is agent's hook file description, from the registry.
func hookFileOf(agent string) (hookFile, bool) {
	spec, ok := specOf(agent)
	return spec.file, ok
}

// agentHookFiles are the files agent reads hooks from for the project at dir, and the user's.
func agentHookFiles(agent, dir string) []string {
	spec, ok := specOf(agent)
	if !ok {
		return nil
	}
	if spec.settingsFiles != nil {
		return spec.settingsFiles(dir)
	}
	files := []string{spec.projectFile(dir)}
	if p, err := spec.userFile(); err == nil {
		files = append(files, p)
	}
	return files
}

// installedStopTimeout is the timeout agent's hook files (the project's at dir, the user's)
// give git-loop's `hook AGENT EVENT`: the shortest one found and the file that sets it; 0
// when none does. Files that do not mention git-loop are not parsed.
func installedStopTimeout(agent, event, dir string) (time.Duration, string) {
	hf, ok := hookFileOf(agent)
	u, uok := specOf(agent)
	if !ok || !uok {
		return 0, ""
	}
	var best time.Duration
	var from string
	for _, path := range agentHookFiles(agent, dir) {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte("git-loop")) && !bytes.Contains(data, []byte("git loop")) {
			continue
		}
		if d := stopTimeoutIn(data, hf, u.timeoutKey, agent, event); d > 0 {
			d *= u.timeoutUnit
			if best == 0 || d < best {
				best, from = d, path
			}
		}
	}
	return best, from
}

// stopTimeoutIn finds git-loop's `hook AGENT EVENT` entry in a hook file and returns its
// timeout, in the file's unit; 0 when there is none or it states none.
func stopTimeoutIn(data []byte, hf hookFile, key, agent, event string) time.Duration {
	var doc struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return 0
	}
	var shortest time.Duration
	for _, h := range hf.hooks {
		if !strings.HasSuffix(h.command, " "+agent+" "+event) {
			continue
		}
		var entries []json.RawMessage
		if json.Unmarshal(doc.Hooks[h.event], &entries) != nil {
			continue
		}
		for _, raw := range entries {
			cmds := []json.RawMessage{raw}
			if hf.grouped {
				var g struct {
					Hooks []json.RawMessage `json:"hooks"`
				}
				if json.Unmarshal(raw, &g) != nil {
					continue
				}
				cmds = g.Hooks
			}
			for _, c := range cmds {
				var fields map[string]any
				if json.Unmarshal(c, &fields) != nil || !runsHook(fields, hf.commandKeys, agent, event) {
					continue
				}
				if n, ok := fields[key].(float64); ok && n > 0 {
					if d := time.Duration(n); shortest == 0 || d < shortest {
						shortest = d
					}
				}
			}
		}
	}
	return shortest
}

// runsHook reports whether a hook entry's command runs git-loop's `hook AGENT EVENT`.
func runsHook(fields map[string]any, keys []string, agent, event string) bool {
	for _, k := range keys {
		if s, ok := fields[k].(string); ok {
			if a, e, ok := gitLoopHookArgs(s); ok && a == agent && e == event {
				return true
			}
		}
	}
	return false
}

// stopBudget fills in how long the agent lets this stop's hook run, as its files say, and
// when the hook began.
func stopBudget(stop *loop.StopInput, hook, dir string, began time.Time) {
	stop.Began = began
	agent, event, ok := strings.Cut(hook, " ")
	if !ok {
		return
	}
	if d, from := installedStopTimeout(agent, event, dir); d > 0 {
		stop.HookTimeout, stop.HookTimeoutFrom = d, from
	}
}
