package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/loop/report"
)

// InstallResult says what an install did, for printing.
type InstallResult struct {
	Path    string   // the file written or inspected
	Created bool     // the file did not exist and was created
	Added   []string // what was added
	Present []string // what was already there, left as it was
	Removed []string // what was removed (git-loop's own leftovers), and why
	// Kept is set when an existing file that differs from git-loop's was left alone: why,
	// and how to get git-loop's instead.
	Kept string
	// Note warns of git-loop's hooks found in another of the agent's files too (project and
	// user): the agent runs both, so each stop would be judged twice.
	Note string
	// Blocked says what still keeps the agent from running the hooks (a folder it does not
	// trust, say), each with its fix.
	Blocked []string
}

// Changed reports whether the install wrote anything.
func (r InstallResult) Changed() bool { return len(r.Added) > 0 || len(r.Removed) > 0 }

// String is the result as lines for a person.
func (r InstallResult) String() string {
	var b strings.Builder
	for _, a := range r.Added {
		fmt.Fprintf(&b, "added %s to %s\n", a, r.Path)
	}
	for _, p := range r.Present {
		fmt.Fprintf(&b, "already present in %s: %s\n", r.Path, p)
	}
	for _, p := range r.Removed {
		fmt.Fprintf(&b, "removed %s\n", p)
	}
	if r.Kept != "" {
		b.WriteString(r.Kept + "\n")
	}
	if r.Note != "" {
		b.WriteString("note: " + r.Note + "\n")
	}
	for _, s := range r.Blocked {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// HookFile describes one agent's hook configuration file: a JSON object whose "hooks"
// object maps each event to an array of entries; or, for an agent without command hooks,
// a program git-loop writes whole (Script).
type HookFile struct {
	Product  string // the agent's name, for messages
	Preamble []KV   // members a new file starts with (a format version)
	Hooks    []FileHook
	// Grouped: the event's entries are groups holding a "hooks" array of commands
	// (Claude Code, Codex, Gemini CLI); otherwise each entry is a command (Cursor, Copilot).
	Grouped bool
	// CommandKeys are the fields that may hold an entry's command.
	CommandKeys []string
	// Comments is set where the agent reads comments in the file (JSON with comments, as
	// Gemini CLI, Qwen Code and Droid do): install, which cannot keep them in place, then
	// says they are why it leaves the file alone.
	Comments bool
	// Script, when set, makes the hook file a program that git-loop writes whole and owns,
	// for an agent that runs no hook commands but loads such programs (OpenCode's plugins):
	// it is the program's text with its judging hooks' timeout n, in the agent's unit,
	// which the text states once as `KEY = n`, KEY being the agent's TimeoutKey. Hooks
	// then lists the commands the program runs (their Entry unused), and Preamble, Grouped
	// and CommandKeys do not apply. See Agent.InstallHookFile for what install does with it.
	Script func(timeout int) string
}

// FileHook is one hook git-loop adds to a HookFile.
type FileHook struct {
	Event   string // the agent's event key
	Command string // git-loop's command, "git-loop hook AGENT EVENT"
	Entry   any    // the JSON value appended to the event's array: a HookGroup or an Object
}

// InstallHooks merges hf's hooks into the file at path, creating it (and its directory) if
// absent. It never clobbers: everything else in the file — other keys, other hooks and
// matchers, their order and formatting — is kept byte for byte, and the new entries are
// indented like the file. A hook counts as present when an entry of its event runs
// git-loop's "hook AGENT EVENT" command (as git-loop, a path to it, or git loop), so
// installing again changes nothing and does not even rewrite the file. A file that is not a
// JSON object, or whose "hooks" is not one, is an error (ErrHookFile) naming the file, and
// the file is left untouched. The file is replaced atomically (a temporary file renamed
// over it) and keeps its permissions; a symlink is followed, so a settings file kept
// elsewhere (dotfiles) is updated where it lives.
func InstallHooks(path string, hf HookFile) (InstallResult, error) {
	res := InstallResult{Path: path}
	target, doc, created, err := ReadForEdit(path, hf.Product+" settings")
	if err != nil {
		return res, err
	}
	res.Created = created
	out, added, present, err := MergeHooks(doc, path, hf)
	if err != nil {
		return res, err
	}
	res.Added, res.Present = added, present
	if len(added) == 0 {
		return res, nil
	}
	return res, WriteEdited(path, target, out, 0o644)
}

// ReadForEdit reads the file at path (through a symlink, to the file it names) for an edit
// that keeps it whole: its target, its content, and whether it is missing (to be created).
// what names the file in errors.
func ReadForEdit(path, what string) (target string, doc []byte, missing bool, err error) {
	if target, err = report.ResolveLink(path); err != nil {
		return "", nil, false, fmt.Errorf("hooks: %w", err)
	}
	doc, err = os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, true, nil
	case err != nil:
		return "", nil, false, fmt.Errorf("hooks: read %s: %w", what, err)
	}
	return target, doc, false, nil
}

// WriteEdited replaces target, the file path names, with out atomically, creating its
// directory; a new file gets perm, its directory perm with the search bits, and an existing
// file keeps its mode.
func WriteEdited(path, target string, out []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), perm|(perm&0o444)>>2); err != nil {
		return fmt.Errorf("hooks: create the directory of %s: %w", path, err)
	}
	if err := report.ReplaceFile(target, out, perm); err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	return nil
}

// MergeHooks returns doc with hf's missing hooks added, what it added and what was present.
func MergeHooks(doc []byte, name string, hf HookFile) (out []byte, added, present []string, err error) {
	bom := []byte("\xef\xbb\xbf")
	hadBOM := bytes.HasPrefix(doc, bom)
	doc = bytes.TrimPrefix(doc, bom)
	fresh := len(bytes.TrimSpace(doc)) == 0
	if fresh {
		doc = []byte("{}\n")
		if len(hf.Preamble) > 0 {
			doc, _ = json.MarshalIndent(Object(hf.Preamble), "", "  ")
		}
	}
	if err := checkSettings(doc, name, hf.Product, hf.Comments); err != nil {
		return nil, nil, nil, err
	}
	top := objectAt(doc, jsWS(doc, 0))
	st := inferStyle(doc, top)
	hooksM := lastMember(top.members, "hooks")
	hooksNull := false
	var hooksObj jsonObj
	if hooksM != nil {
		switch doc[hooksM.val.start] {
		case '{':
			hooksObj = objectAt(doc, hooksM.val.start)
		case 'n': // "hooks": null, no hooks yet
			hooksNull = true
		default:
			return nil, nil, nil, settingsShapeError(name, hf.Product, `"hooks"`, doc[hooksM.val.start], "an object")
		}
	}
	haveHooks := hooksM != nil && !hooksNull

	var edits []textEdit
	var newEvents []KV // events the file has no entry for
	for _, h := range hf.Hooks {
		var ev *jsonMember
		if haveHooks {
			ev = lastMember(hooksObj.members, h.Event)
		}
		if ev != nil && doc[ev.val.start] != '[' && doc[ev.val.start] != 'n' {
			return nil, nil, nil, settingsShapeError(name, hf.Product, `"hooks"."`+h.Event+`"`, doc[ev.val.start], "an array")
		}
		what := fmt.Sprintf("%s hook %q", h.Event, h.Command)
		if ev != nil && doc[ev.val.start] == '[' && hasOurHook(doc, arrayAt(doc, ev.val.start), hf, h.Command) {
			present = append(present, what)
			continue
		}
		added = append(added, what)
		entry := h.Entry
		switch {
		case ev == nil:
			newEvents = append(newEvents, KV{h.Event, []any{entry}})
		case doc[ev.val.start] == 'n': // "Stop": null
			edits = append(edits, replaceValue(doc, st, ev.val, []any{entry}))
		default:
			arr := arrayAt(doc, ev.val.start)
			edits = append(edits, appendChildren(doc, st, arr.open, arr.close, arr.elems, func(ind string, pretty bool) []string {
				return []string{st.render(entry, ind, pretty)}
			}))
		}
	}
	if len(added) == 0 {
		return nil, nil, present, nil
	}
	if len(newEvents) > 0 {
		switch {
		case haveHooks:
			edits = append(edits, appendChildren(doc, st, hooksObj.open, hooksObj.close, hooksObj.spans(), membersRenderer(st, newEvents)))
		case hooksNull:
			edits = append(edits, replaceValue(doc, st, hooksM.val, Object(newEvents)))
		default:
			edits = append(edits, appendChildren(doc, st, top.open, top.close, top.spans(), membersRenderer(st, []KV{{"hooks", Object(newEvents)}})))
		}
	}
	out = applyEdits(doc, edits)
	if fresh {
		out = append(bytes.TrimSpace(out), st.nl...)
	}
	// The edits only add; check the result before it replaces a user's file.
	if err := checkSettings(out, name, hf.Product, hf.Comments); err != nil {
		return nil, nil, nil, fmt.Errorf("hooks: internal error: merging hooks into %s made invalid JSON (%v); the file was left untouched", name, err)
	}
	if hadBOM {
		out = append(append([]byte{}, bom...), out...)
	}
	return out, added, present, nil
}

// ErrHookFile: an agent's hook or settings file is not in the shape install can merge into
// (invalid JSON, or hooks that are not an object); the file is left untouched.
var ErrHookFile = errors.New("hook file not mergeable")

// checkSettings accepts a JSON object and explains anything else.
func checkSettings(doc []byte, name, product string, comments bool) error {
	if !json.Valid(doc) {
		if comments && json.Valid(fileedit.StripJSONComments(doc)) {
			return fmt.Errorf("hooks: %w: %s holds comments, which %s reads but install cannot keep in place; add git-loop's hooks by hand (`git loop doctor` checks them), or remove the comments and install again; the file was left untouched", ErrHookFile, name, product)
		}
		err := json.Unmarshal(doc, new(any))
		var syn *json.SyntaxError
		where := ""
		if errors.As(err, &syn) {
			line, col := lineCol(doc, syn.Offset)
			where = fmt.Sprintf("line %d, column %d: ", line, col)
		}
		return fmt.Errorf("hooks: %w: %s is not valid JSON (%s%s); fix it by hand (or move it away) and install again; the file was left untouched", ErrHookFile, name, where, OneLine(errText(err)))
	}
	if i := jsWS(doc, 0); doc[i] != '{' {
		return fmt.Errorf("hooks: %w: %s holds a JSON %s, but %s's hook settings are a JSON object; fix it by hand (or move it away) and install again; the file was left untouched", ErrHookFile, name, jsonKind(doc[i]), product)
	}
	return nil
}

func errText(err error) string {
	if err == nil {
		return "invalid JSON"
	}
	return err.Error()
}

func settingsShapeError(name, product, key string, first byte, want string) error {
	return fmt.Errorf("hooks: %w: %s: %s is a JSON %s, but %s expects %s there; fix it by hand and install again; the file was left untouched", ErrHookFile, name, key, jsonKind(first), product, want)
}

// HookGroup is an entry of a grouped hook file: a group of command hooks.
type HookGroup struct {
	Hooks []HookCommand `json:"hooks"`
}

// HookCommand is one command hook of a HookGroup.
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// hasOurHook reports whether an entry of the event array runs command (git-loop's), directly
// or, in a grouped file, inside a group's "hooks".
func hasOurHook(doc []byte, arr jsonArr, hf HookFile, command string) bool {
	f := strings.Fields(command)
	wantAgent, wantEvent := f[2], f[3]
	for _, el := range arr.elems {
		entries := []json.RawMessage{json.RawMessage(doc[el.start:el.end])}
		if hf.Grouped {
			var g struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(doc[el.start:el.end], &g) != nil {
				continue
			}
			entries = g.Hooks
		}
		for _, raw := range entries {
			var fields map[string]any
			if json.Unmarshal(raw, &fields) != nil {
				continue
			}
			for _, key := range hf.CommandKeys {
				s, ok := fields[key].(string)
				if !ok {
					continue
				}
				if agent, event, ok := GitLoopHookArgs(s); ok && agent == wantAgent && event == wantEvent {
					return true
				}
			}
		}
	}
	return false
}

// GitLoopHookArgs returns the agent and event arguments of a "git-loop hook AGENT EVENT"
// command, however git-loop is named: git-loop, a path to it (quoted or not, with or without
// .exe), or "git loop".
func GitLoopHookArgs(command string) (agent, event string, ok bool) {
	f := strings.Fields(command)
	if len(f) == 0 {
		return "", "", false
	}
	prog := strings.Trim(f[0], `"'`)
	if i := strings.LastIndexAny(prog, `/\`); i >= 0 {
		prog = prog[i+1:]
	}
	prog = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(prog, ".exe"), ".EXE"))
	switch {
	case prog == "git-loop":
		f = f[1:]
	case prog == "git" && len(f) > 1 && f[1] == "loop":
		f = f[2:]
	default:
		return "", "", false
	}
	if len(f) < 3 || f[0] != "hook" {
		return "", "", false
	}
	return f[1], f[2], true
}
