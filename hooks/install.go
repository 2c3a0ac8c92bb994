package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/loop/report"
)

// Claude Code reads hooks from its settings files (code.claude.com/docs/en/settings): the
// user's (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json) and the project's
// (<project>/.claude/settings.json, committed). Their shape:
//
//	{"hooks": {"Stop": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": 660}]}]}}
//
// Stop, SubagentStop and SessionStart groups need no matcher (SessionStart's would filter
// on its source; without one every source runs it). timeout is in seconds.

// ClaudeHook is one hook git-loop installs for Claude Code.
type ClaudeHook struct {
	Event   string // Claude Code's hook event
	Command string // the command Claude Code runs
	Timeout int    // seconds before Claude Code cancels it
}

// ClaudeHooks are the hooks InstallClaude installs. Stop runs the loop's gates, so it gets
// stopTimeout, which leaves room for the default gate timeout and the record (install
// writes more when .gitloop's gates need it, see timeouts.go); a hook that times out is
// cancelled and the agent stops.
var ClaudeHooks = []ClaudeHook{
	{"Stop", "git-loop hook claude stop", stopTimeout},
	{"SubagentStop", "git-loop hook claude subagent-stop", stopTimeout},
	{"SessionStart", "git-loop hook claude session-start", 60},
}

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

// ClaudeProjectSettings is the project settings file of the worktree at dir.
func ClaudeProjectSettings(dir string) string {
	return filepath.Join(dir, ".claude", "settings.json")
}

// ClaudeUserSettings is the user's settings file: $CLAUDE_CONFIG_DIR/settings.json when
// that is set (Claude Code honours it), else ~/.claude/settings.json.
func ClaudeUserSettings() (string, error) {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "settings.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("hooks: find the user's Claude Code settings: %w", err)
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// InstallClaude merges git-loop's hooks (ClaudeHooks) into the Claude Code settings file
// at settingsPath, creating it (and its directory) if absent. It never clobbers: everything
// else in the file — other keys, other hooks and matchers, their order and formatting — is
// kept byte for byte, and the new entries are indented like the file. A hook counts as
// present when a command hook of that event runs git-loop's "hook claude <event>" command
// (as git-loop, a path to it, or git loop), so running InstallClaude again changes nothing
// and does not even rewrite the file. A file that is not a JSON object, or whose "hooks" is
// not one, is an error naming the file and left untouched. The file is replaced atomically
// (a temporary file renamed over it) and keeps its permissions; a symlink is followed, so a
// settings file kept elsewhere (dotfiles) is updated where it lives.
func InstallClaude(settingsPath string) (InstallResult, error) {
	return installHooks(settingsPath, claudeFile)
}

// hookFile describes one agent's hook configuration file: a JSON object whose "hooks"
// object maps each event to an array of entries.
type hookFile struct {
	agent    string   // the AGENT argument of git-loop's hook commands
	product  string   // the agent's name, for messages
	preamble []jsonKV // members a new file starts with (a format version)
	hooks    []fileHook
	// grouped: the event's entries are groups holding a "hooks" array of commands
	// (Claude Code, Codex, Gemini CLI); otherwise each entry is a command (Cursor, Copilot).
	grouped bool
	// commandKeys are the fields that may hold an entry's command.
	commandKeys []string
}

// fileHook is one hook git-loop adds to a hookFile.
type fileHook struct {
	event   string // the agent's event key
	command string // git-loop's command, "git-loop hook AGENT EVENT"
	entry   any    // the JSON value appended to the event's array
}

var claudeFile = func() hookFile {
	hf := hookFile{agent: "claude", product: "Claude Code", grouped: true, commandKeys: []string{"command"}}
	for _, h := range ClaudeHooks {
		group := hookGroup{Hooks: []hookCommand{{"command", h.Command, h.Timeout}}}
		hf.hooks = append(hf.hooks, fileHook{h.Event, h.Command, group})
	}
	return hf
}()

// installHooks merges hf's hooks into the file at path, as InstallClaude describes.
func installHooks(path string, hf hookFile) (InstallResult, error) {
	res := InstallResult{Path: path}
	target, doc, created, err := readForEdit(path, hf.product+" settings")
	if err != nil {
		return res, err
	}
	res.Created = created
	out, added, present, err := mergeHooks(doc, path, hf)
	if err != nil {
		return res, err
	}
	res.Added, res.Present = added, present
	if len(added) == 0 {
		return res, nil
	}
	return res, writeEdited(path, target, out, 0o644)
}

// readForEdit reads the file at path (through a symlink, to the file it names) for an edit
// that keeps it whole: its target, its content, and whether it is missing (to be created).
// what names the file in errors.
func readForEdit(path, what string) (target string, doc []byte, missing bool, err error) {
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

// writeEdited replaces target, the file path names, with out atomically, creating its
// directory; a new file gets perm, its directory perm with the search bits, and an existing
// file keeps its mode.
func writeEdited(path, target string, out []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), perm|(perm&0o444)>>2); err != nil {
		return fmt.Errorf("hooks: create the directory of %s: %w", path, err)
	}
	if err := report.ReplaceFile(target, out, perm); err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	return nil
}

// mergeClaudeHooks returns doc with the missing ClaudeHooks added, what it added and what
// was present. name names the file in errors.
func mergeClaudeHooks(doc []byte, name string) (out []byte, added, present []string, err error) {
	return mergeHooks(doc, name, claudeFile)
}

// mergeHooks returns doc with hf's missing hooks added, what it added and what was present.
func mergeHooks(doc []byte, name string, hf hookFile) (out []byte, added, present []string, err error) {
	bom := []byte("\xef\xbb\xbf")
	hadBOM := bytes.HasPrefix(doc, bom)
	doc = bytes.TrimPrefix(doc, bom)
	fresh := len(bytes.TrimSpace(doc)) == 0
	if fresh {
		doc = []byte("{}\n")
		if len(hf.preamble) > 0 {
			doc, _ = json.MarshalIndent(orderedObject(hf.preamble), "", "  ")
		}
	}
	if err := checkSettings(doc, name, hf.product); err != nil {
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
			return nil, nil, nil, settingsShapeError(name, hf.product, `"hooks"`, doc[hooksM.val.start], "an object")
		}
	}
	haveHooks := hooksM != nil && !hooksNull

	var edits []textEdit
	var newEvents []jsonKV // events the file has no entry for
	for _, h := range hf.hooks {
		var ev *jsonMember
		if haveHooks {
			ev = lastMember(hooksObj.members, h.event)
		}
		if ev != nil && doc[ev.val.start] != '[' && doc[ev.val.start] != 'n' {
			return nil, nil, nil, settingsShapeError(name, hf.product, `"hooks"."`+h.event+`"`, doc[ev.val.start], "an array")
		}
		what := fmt.Sprintf("%s hook %q", h.event, h.command)
		if ev != nil && doc[ev.val.start] == '[' && hasOurHook(doc, arrayAt(doc, ev.val.start), hf, h.command) {
			present = append(present, what)
			continue
		}
		added = append(added, what)
		entry := h.entry
		switch {
		case ev == nil:
			newEvents = append(newEvents, jsonKV{h.event, []any{entry}})
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
			edits = append(edits, replaceValue(doc, st, hooksM.val, orderedObject(newEvents)))
		default:
			edits = append(edits, appendChildren(doc, st, top.open, top.close, top.spans(), membersRenderer(st, []jsonKV{{"hooks", orderedObject(newEvents)}})))
		}
	}
	out = applyEdits(doc, edits)
	if fresh {
		out = append(bytes.TrimSpace(out), st.nl...)
	}
	// The edits only add; check the result before it replaces a user's file.
	if err := checkSettings(out, name, hf.product); err != nil {
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
func checkSettings(doc []byte, name, product string) error {
	if !json.Valid(doc) {
		err := json.Unmarshal(doc, new(any))
		var syn *json.SyntaxError
		where := ""
		if errors.As(err, &syn) {
			line, col := lineCol(doc, syn.Offset)
			where = fmt.Sprintf("line %d, column %d: ", line, col)
		}
		return fmt.Errorf("hooks: %w: %s is not valid JSON (%s%s); fix it by hand (or move it away) and install again; the file was left untouched", ErrHookFile, name, where, oneLine(errText(err)))
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

type hookGroup struct {
	Hooks []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// hasOurHook reports whether an entry of the event array runs command (git-loop's), directly
// or, in a grouped file, inside a group's "hooks".
func hasOurHook(doc []byte, arr jsonArr, hf hookFile, command string) bool {
	f := strings.Fields(command)
	wantAgent, wantEvent := f[2], f[3]
	for _, el := range arr.elems {
		entries := []json.RawMessage{json.RawMessage(doc[el.start:el.end])}
		if hf.grouped {
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
			for _, key := range hf.commandKeys {
				s, ok := fields[key].(string)
				if !ok {
					continue
				}
				if agent, event, ok := gitLoopHookArgs(s); ok && agent == wantAgent && event == wantEvent {
					return true
				}
			}
		}
	}
	return false
}

// gitLoopHookArgs returns the agent and event arguments of a "git-loop hook AGENT EVENT"
// command, however git-loop is named: git-loop, a path to it (quoted or not, with or without
// .exe), or "git loop".
func gitLoopHookArgs(command string) (agent, event string, ok bool) {
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

// --- a minimal, position-keeping reader of JSON already known to be valid ---

type jsonSpan struct{ start, end int }

type jsonMember struct {
	key   string
	keyAt int
	val   jsonSpan
}

type jsonObj struct {
	open, close int // offsets of '{' and '}'
	members     []jsonMember
}

type jsonArr struct {
	open, close int // offsets of '[' and ']'
	elems       []jsonSpan
}

// spans are the members' extents, from key to the end of the value.
func (o jsonObj) spans() []jsonSpan {
	s := make([]jsonSpan, len(o.members))
	for i, m := range o.members {
		s[i] = jsonSpan{m.keyAt, m.val.end}
	}
	return s
}

func lastMember(ms []jsonMember, key string) *jsonMember {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return &ms[i]
		}
	}
	return nil
}

func jsWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsStringEnd returns the offset just past the string that starts at b[i] == '"'.
func jsStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// jsValueEnd returns the offset just past the value that starts at b[i].
func jsValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return jsStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = jsStringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && strings.IndexByte(",]} \t\r\n", b[j]) < 0 {
		j++
	}
	return j
}

func objectAt(b []byte, open int) jsonObj {
	o := jsonObj{open: open}
	i := jsWS(b, open+1)
	for b[i] != '}' {
		keyEnd := jsStringEnd(b, i)
		var key string
		_ = json.Unmarshal(b[i:keyEnd], &key)
		v := jsWS(b, jsWS(b, keyEnd)+1) // past ':'
		end := jsValueEnd(b, v)
		o.members = append(o.members, jsonMember{key, i, jsonSpan{v, end}})
		i = jsWS(b, end)
		if b[i] == ',' {
			i = jsWS(b, i+1)
		}
	}
	o.close = i
	return o
}

func arrayAt(b []byte, open int) jsonArr {
	a := jsonArr{open: open}
	i := jsWS(b, open+1)
	for b[i] != ']' {
		end := jsValueEnd(b, i)
		a.elems = append(a.elems, jsonSpan{i, end})
		i = jsWS(b, end)
		if b[i] == ',' {
			i = jsWS(b, i+1)
		}
	}
	a.close = i
	return a
}

// --- writing in the file's own style ---

type jsonStyle struct {
	pretty bool   // the file is indented, one member per line
	unit   string // one level of indentation
	nl     string // "\n", or "\r\n" in a file that uses it
}

// inferStyle reads the file's style from its first member: on a line of its own (indented
// by one unit) or not. An empty object gets Claude Code's own style, two spaces.
func inferStyle(doc []byte, top jsonObj) jsonStyle {
	st := jsonStyle{pretty: true, unit: "  ", nl: "\n"}
	if bytes.Contains(doc, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if len(top.members) > 0 {
		ind, own := lineIndent(doc, top.members[0].keyAt)
		switch {
		case !own:
			st.pretty = false
		default:
			if base := lineStartIndent(doc, top.open); len(ind) > len(base) && strings.HasPrefix(ind, base) {
				st.unit = ind[len(base):]
			}
		}
	}
	return st
}

// lineIndent returns the white space before pos when pos starts its line.
func lineIndent(doc []byte, pos int) (string, bool) {
	j := pos
	for j > 0 && (doc[j-1] == ' ' || doc[j-1] == '\t') {
		j--
	}
	if j > 0 && doc[j-1] != '\n' {
		return "", false
	}
	return string(doc[j:pos]), true
}

// lineStartIndent returns the white space that starts the line holding pos.
func lineStartIndent(doc []byte, pos int) string {
	j := bytes.LastIndexByte(doc[:pos], '\n') + 1
	k := j
	for k < len(doc) && (doc[k] == ' ' || doc[k] == '\t') {
		k++
	}
	return string(doc[j:k])
}

// render writes v starting at indentation ind: indented in the file's unit, or compact.
func (st jsonStyle) render(v any, ind string, pretty bool) string {
	var out []byte
	if pretty {
		out, _ = json.MarshalIndent(v, ind, st.unit)
		if st.nl != "\n" {
			out = bytes.ReplaceAll(out, []byte("\n"), []byte(st.nl))
		}
	} else {
		out, _ = json.Marshal(v)
	}
	return string(out)
}

type jsonKV struct {
	key string
	val any
}

// orderedObject is a JSON object whose members keep their order.
type orderedObject []jsonKV

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		v, err := json.Marshal(kv.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func membersRenderer(st jsonStyle, kvs []jsonKV) func(string, bool) []string {
	return func(ind string, pretty bool) []string {
		sep := ":"
		if pretty || st.pretty {
			sep = ": "
		}
		out := make([]string, len(kvs))
		for i, kv := range kvs {
			k, _ := json.Marshal(kv.key)
			out[i] = string(k) + sep + st.render(kv.val, ind, pretty)
		}
		return out
	}
}

type textEdit struct {
	start, end int // replace doc[start:end]
	text       string
}

// appendChildren adds children after the last of a container's (or into an empty one),
// laid out like the existing ones: each on its own line at their indentation, or inline.
func appendChildren(doc []byte, st jsonStyle, open, close int, children []jsonSpan, render func(ind string, pretty bool) []string) textEdit {
	if len(children) == 0 {
		if !st.pretty {
			return textEdit{open + 1, close, strings.Join(render("", false), ",")}
		}
		base := lineStartIndent(doc, open)
		ind := base + st.unit
		items := render(ind, true)
		return textEdit{open + 1, close, st.nl + ind + strings.Join(items, ","+st.nl+ind) + st.nl + base}
	}
	last := children[len(children)-1]
	if ind, own := lineIndent(doc, last.start); own {
		items := render(ind, true)
		return textEdit{last.end, last.end, "," + st.nl + ind + strings.Join(items, ","+st.nl+ind)}
	}
	sep := ","
	if st.pretty {
		sep = ", "
	}
	return textEdit{last.end, last.end, sep + strings.Join(render("", false), sep)}
}

// replaceValue replaces a value (a null) with v, indented from its line.
func replaceValue(doc []byte, st jsonStyle, val jsonSpan, v any) textEdit {
	return textEdit{val.start, val.end, st.render(v, lineStartIndent(doc, val.start), st.pretty)}
}

// applyEdits applies non-overlapping edits, last first so offsets stay valid.
func applyEdits(doc []byte, edits []textEdit) []byte {
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start > edits[j].start
		}
		return edits[i].end > edits[j].end
	})
	out := append([]byte{}, doc...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// --- files ---

// --- the /git-loop slash command ---

// SlashArgsEnd is the line the /git-loop command writes after the arguments it passes to
// `git-loop start --slash-args=-`: without it, the arguments were cut short.
const SlashArgsEnd = "GIT_LOOP_END_OF_ARGUMENTS"

// SlashCommandName is the name of the slash command InstallSlashCommand writes. It is not
// "loop": a project command of that name would hide Claude Code's own /loop.
const SlashCommandName = "git-loop"

// slashCommand starts a loop from inside Claude Code. The "```!" block runs before the
// prompt reaches the model, with $ARGUMENTS and ${CLAUDE_SESSION_ID} substituted by Claude
// Code; allowed-tools lets it run without a permission prompt. The arguments go through a
// quoted here-document, so no character the user types (quotes, $, backticks) reaches the
// shell as syntax: git-loop reads them with --slash-args and splits them itself
// (ParseSlashArgs), taking the ralph-loop plugin's forms (a quoted task,
// --completion-promise TEXT, --max-iterations N) and start's own options. Errors go to
// standard output too, so the model sees them and can show them. When ${CLAUDE_SESSION_ID} is
// not substituted (older Claude Code) the shell expands it to nothing and git-loop falls back
// to $CLAUDE_CODE_SESSION_ID.
//
// Claude Code substitutes $ARGUMENTS as text, so arguments holding a line of three
// backquotes end the block early, and a line GIT_LOOP_ARGS ends the here-document early.
// Either way the line SlashArgsEnd does not reach git-loop, which then refuses to start,
// and "|| exit" keeps the shell from running what followed the early end as commands.
const slashCommand = `---
description: Start a git-loop loop on a task; the project's gates decide when it is done
argument-hint: "TASK [--completion-promise TEXT] [--max-iterations N] [--gate NAME=CMD]"
allowed-tools: Bash(git-loop start:*)
disable-model-invocation: true
---

` + "```!" + `
git-loop start --session="${CLAUDE_SESSION_ID}" --slash-args=- 2>&1 <<'GIT_LOOP_ARGS' || exit
$ARGUMENTS
` + SlashArgsEnd + `
GIT_LOOP_ARGS
` + "```" + `

If the output above does not say "loop ... started", no loop is running: show the user
exactly what git-loop printed (it says how to fix it) and stop, without working on the task.

Otherwise git-loop has started a loop; the output above gives its task and what completes it.
Work on the task now.

Each time you stop, git-loop snapshots the worktree and runs the project's gates. Until the
loop completes it sends you back with the task and what still fails, so finish the work for
real. If the loop has a promise, write it as <promise>PHRASE</promise> only when it is true.
`

// SlashCommandPath is where InstallSlashCommand writes the command for projectDir.
func SlashCommandPath(projectDir string) string {
	return filepath.Join(projectDir, ".claude", "commands", SlashCommandName+".md")
}

// oldSlashCommandPath is where earlier versions wrote it, as /loop.
func oldSlashCommandPath(projectDir string) string {
	return filepath.Join(projectDir, ".claude", "commands", "loop.md")
}

// InstallSlashCommand writes <projectDir>/.claude/commands/git-loop.md, a /git-loop command
// that starts a loop from inside Claude Code. A file that is already git-loop's (line
// endings aside) is left as it is; one that differs (the user's own, or edited) is never
// overwritten: the result's Kept says so. A .claude/commands/loop.md that an earlier
// git-loop wrote (byte for byte one of its versions, line endings aside) is removed, as it
// hid Claude Code's own /loop; any other loop.md is left alone.
func InstallSlashCommand(projectDir string) (InstallResult, error) {
	path := SlashCommandPath(projectDir)
	res := InstallResult{Path: path}
	what := "the /" + SlashCommandName + " command"
	have, err := os.ReadFile(path)
	switch {
	case err == nil:
		if sameText(have, slashCommand) {
			res.Present = append(res.Present, what)
		} else {
			res.Kept = fmt.Sprintf("%s exists and differs from git-loop's %s; it was left as it is (remove it and install again to get git-loop's)", path, what)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return res, fmt.Errorf("hooks: read %s: %w", path, err)
	default:
		if _, err := os.Lstat(path); err == nil { // a dangling symlink: not ours to replace
			res.Kept = fmt.Sprintf("%s is a symlink to a missing file; it was left as it is", path)
			break
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return res, fmt.Errorf("hooks: create %s: %w", filepath.Dir(path), err)
		}
		if err := report.ReplaceFile(path, []byte(slashCommand), 0o644); err != nil {
			return res, fmt.Errorf("hooks: %w", err)
		}
		res.Created = true
		res.Added = append(res.Added, what)
	}
	return res, removeOldSlashCommand(projectDir, &res)
}

// removeOldSlashCommand removes the /loop command an earlier git-loop wrote, and notes a
// loop.md that runs git-loop but is not one of its versions (an edited copy).
func removeOldSlashCommand(projectDir string, res *InstallResult) error {
	old := oldSlashCommandPath(projectDir)
	fi, err := os.Lstat(old)
	if err != nil || !fi.Mode().IsRegular() { // absent, or a symlink or directory: the user's
		return nil
	}
	have, err := os.ReadFile(old)
	if err != nil {
		return fmt.Errorf("hooks: read %s: %w", old, err)
	}
	for _, v := range legacySlashCommands {
		if sameText(have, v) {
			if err := os.Remove(old); err != nil {
				return fmt.Errorf("hooks: remove git-loop's old /loop command: %w", err)
			}
			res.Removed = append(res.Removed, fmt.Sprintf("%s: git-loop's old /loop command, which hid Claude Code's own /loop (it is /%s now)", old, SlashCommandName))
			return nil
		}
	}
	if bytes.Contains(have, []byte("git-loop start")) {
		res.Note = fmt.Sprintf("%s runs git-loop but is not a copy git-loop wrote, so it was left as it is; it hides Claude Code's own /loop: remove it if /%s replaces it", old, SlashCommandName)
	}
	return nil
}

// sameText reports whether a file holds text, line endings aside (git on Windows may check
// it out with CRLF).
func sameText(file []byte, text string) bool {
	return bytes.Equal(bytes.ReplaceAll(file, []byte("\r\n"), []byte("\n")), []byte(text))
}

// claudeSettingsFiles are the settings files Claude Code reads hooks from: the project's,
// its local ones and the user's.
func claudeSettingsFiles(dir string) []string {
	files := []string{ClaudeProjectSettings(dir), filepath.Join(dir, ".claude", "settings.local.json")}
	if user, err := ClaudeUserSettings(); err == nil {
		files = append(files, user)
	}
	return files
}

// installClaudeCommand adds the /git-loop slash command to the project (not for the user).
func installClaudeCommand(dir string, user bool) ([]InstallResult, error) {
	if user {
		return nil, nil
	}
	res, err := InstallSlashCommand(dir)
	if err != nil {
		return nil, err
	}
	return []InstallResult{res}, nil
}
