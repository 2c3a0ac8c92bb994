package kit

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/loop"
)

// A stop hook's timeout, as install writes it and as the hook reads it back. install writes
// loop.HookTimeout of the gates the worktree's .gitloop and git config define (660 s with
// none, or default ones), each agent in its own unit: seconds, but milliseconds for Gemini
// CLI and Qwen Code. A stop reads what the agent's files actually give it (the shortest, when
// several do), as the agent reads it (Agent.ReadTimeout), and cuts its gates to finish the
// engine's hook record margin before that, so that a hung gate is recorded as a timeout
// rather than the agent killing the hook with nothing recorded.

// StopTimeout is how long an agent lets a stop hook run (gates included), in seconds, as
// installed for every agent when the worktree's gates need no more (see
// loop.ConfiguredHookTimeout); the hook cuts its gates off before it.
var StopTimeout = int(loop.HookTimeout(nil, nil) / time.Second)

// withStopTimeout returns the agent's JSON hook file with every judging hook's timeout set
// to d, in the agent's unit: the file as install writes it (InstallHookFile).
func (a *Agent) withStopTimeout(d time.Duration) HookFile {
	n := int(d / a.TimeoutUnit)
	out := a.File
	out.Hooks = make([]FileHook, len(a.File.Hooks))
	for i, h := range a.File.Hooks {
		out.Hooks[i] = h
		if agent, event, ok := GitLoopHookArgs(h.Command); !ok || agent != a.Name || !a.Judges(event) {
			continue
		}
		out.Hooks[i].Entry = entryWithTimeout(h.Entry, a.TimeoutKey, n)
	}
	return out
}

// entryWithTimeout returns a copy of a hook entry with its timeout (key) set to n.
func entryWithTimeout(entry any, key string, n int) any {
	switch e := entry.(type) {
	case HookGroup:
		hs := append([]HookCommand(nil), e.Hooks...)
		for i := range hs {
			hs[i].Timeout = n
		}
		return HookGroup{Hooks: hs}
	case Object:
		o := append(Object(nil), e...)
		for i, kv := range o {
			switch v := kv.Val.(type) {
			case []any: // a group's hooks (Gemini CLI)
				hs := make([]any, len(v))
				for j, h := range v {
					hs[j] = entryWithTimeout(h, key, n)
				}
				o[i].Val = hs
			default:
				if kv.Key == key {
					o[i].Val = n
				}
			}
		}
		return o
	}
	return entry
}

// InstalledStopTimeout is the timeout the agent's hook files (the project's at dir, the
// user's) give git-loop's `hook AGENT EVENT`: the shortest one found and the file that sets
// it; 0 when none does. Files that do not mention git-loop are not parsed. A script
// (HookFile.Script) that runs the hook gives the timeout its text states, edited or not:
// that is what the program applies.
func (a *Agent) InstalledStopTimeout(event, dir string) (time.Duration, string) {
	var best time.Duration
	var from string
	for _, path := range a.ReadsHooksFrom(dir) {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte("git-loop")) && !bytes.Contains(data, []byte("git loop")) {
			continue
		}
		if d := a.timeoutIn(data, event); d > 0 {
			if best == 0 || d < best {
				best, from = d, path
			}
		}
	}
	return best, from
}

// readTimeout is how long the agent lets a hook run whose entry's timeout is n.
func (a *Agent) readTimeout(n float64) time.Duration {
	if a.ReadTimeout != nil {
		return a.ReadTimeout(n)
	}
	return time.Duration(n) * a.TimeoutUnit
}

// timeoutIn is how long a hook file's content lets git-loop's `hook AGENT EVENT` run, as the
// agent reads it; 0 when it runs no such hook or states no timeout.
func (a *Agent) timeoutIn(data []byte, event string) time.Duration {
	if a.File.Script == nil {
		return stopTimeoutIn(data, a.File, a.TimeoutKey, a.Name, event, a.readTimeout, a.DefaultTimeout)
	}
	for _, h := range a.File.Hooks {
		if strings.HasSuffix(h.Command, " "+a.Name+" "+event) && bytes.Contains(data, []byte(h.Command)) {
			if n, _ := ScriptTimeout(a.File, a.TimeoutKey, data); n > 0 {
				return a.readTimeout(float64(n))
			}
			return 0
		}
	}
	return 0
}

// stopTimeoutIn finds git-loop's `hook AGENT EVENT` entry in a hook file and returns its
// timeout, as read reads the entry's value, or def for an entry that states none; 0 when
// there is no such entry. Comments, which some agents allow in their settings, are read past.
func stopTimeoutIn(data []byte, hf HookFile, key, agent, event string, read func(float64) time.Duration, def time.Duration) time.Duration {
	var doc struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil && json.Unmarshal(fileedit.StripJSONComments(data), &doc) != nil {
		return 0
	}
	var shortest time.Duration
	for _, h := range hf.Hooks {
		if !strings.HasSuffix(h.Command, " "+agent+" "+event) {
			continue
		}
		var entries []json.RawMessage
		if json.Unmarshal(doc.Hooks[h.Event], &entries) != nil {
			continue
		}
		for _, raw := range entries {
			cmds := []json.RawMessage{raw}
			if hf.Grouped {
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
				if json.Unmarshal(c, &fields) != nil || !runsHook(fields, hf.CommandKeys, agent, event) {
					continue
				}
				d := def
				if n, ok := fields[key].(float64); ok && n > 0 {
					d = read(n)
				}
				if d > 0 && (shortest == 0 || d < shortest) {
					shortest = d
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
			if a, e, ok := GitLoopHookArgs(s); ok && a == agent && e == event {
				return true
			}
		}
	}
	return false
}

// stopBudget fills in how long the agent lets this stop's hook run, as its files say, and
// when the hook began.
func stopBudget(stop *loop.StopInput, h Hook, dir string, began time.Time) {
	stop.Began = began
	if d, from := h.Agent.InstalledStopTimeout(h.Event, dir); d > 0 {
		stop.HookTimeout, stop.HookTimeoutFrom = d, from
	}
}
